/**
 * The Videos API with the official OpenAI Python SDK (PyPI `openai`, pinned in scripts/openai-python.ts, installed
 * into a venv under .tools/ on first use; .ci/run installs it beforehand): `client.videos.create_and_poll(...)`
 * then `download_content`, against a stack of this file's own, exactly as a Sora application would call it.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findOpenAiPython, OPENAI_PYTHON_VERSION } from '../../scripts/openai-python';
import { TEST_KEYS } from '../support/stack';
import { useStack } from '../support/use-stack';

const gw = useStack({ name: 'openai-python' });
const V_MODEL = 'vendor-video-1-0-pro-250528';

/** The application: nothing but the SDK, its base URL and key from the environment. */
const SCRIPT = `
import json, os, sys, warnings
from openai import OpenAI
# The SDK marks client.videos deprecated (OpenAI closed Sora); the warning is the point of this gateway, not an error.
warnings.filterwarnings("ignore", category=DeprecationWarning)
client = OpenAI(base_url=os.environ["GATEWAY_URL"] + "/v1", api_key=os.environ["GATEWAY_KEY"], max_retries=0)
video = client.videos.create_and_poll(model=sys.argv[1], prompt="python sdk: a heron lifts off", seconds="5", size="1280x720", poll_interval_ms=200)
client.videos.download_content(video.id).write_to_file(os.path.join(sys.argv[2], "video.mp4"))
client.videos.download_content(video.id, variant="thumbnail").write_to_file(os.path.join(sys.argv[2], "thumbnail.jpg"))
print(json.dumps(video.model_dump()))
`;

function runPython(python: string, args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(python, args, { env: { ...process.env, ...env }, timeout: 120_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

test(`openai ${OPENAI_PYTHON_VERSION} (Python): videos.create_and_poll, then download_content of the video and its thumbnail`, async () => {
  const python = findOpenAiPython();
  if (!python)
    throw new Error(
      `the openai Python SDK ${OPENAI_PYTHON_VERSION} is not installed and could not be: run node --import tsx scripts/openai-python.ts`,
    );
  const dir = mkdtempSync(join(tmpdir(), 'mediagate-openai-python-'));
  try {
    const script = join(dir, 'app.py');
    writeFileSync(script, SCRIPT);
    const run = await runPython(python, [script, V_MODEL, dir], { GATEWAY_URL: gw.stack.apiUrl, GATEWAY_KEY: TEST_KEYS.alice.secret });
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
    const video = JSON.parse(run.stdout) as Record<string, unknown>;
    expect(video).toMatchObject({
      object: 'video',
      model: V_MODEL,
      status: 'completed',
      progress: 100,
      seconds: '5',
      size: '1280x720',
      error: null,
    });

    expect(readFileSync(join(dir, 'video.mp4')).subarray(4, 8).toString('latin1')).toBe('ftyp');
    expect([...readFileSync(join(dir, 'thumbnail.jpg')).subarray(0, 3)]).toEqual([0xff, 0xd8, 0xff]);

    // The same task through the gateway's own door, and the platform asked for 16:9 at 720p for 5 seconds.
    expect((await gw.alice.get(`/v1/generations/${String(video.id)}`)).body).toMatchObject({ status: 'success', model: V_MODEL });
    const submit = await gw.sim.waitForRequest('V', 'submit', (b) => b?.content?.[0]?.text === 'python sdk: a heron lifts off');
    expect(submit.body).toMatchObject({ ratio: '16:9', resolution: '720p', duration: 5 });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
