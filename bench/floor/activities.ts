/**
 * The floor's activities: platform V's create and read as Volcengine Ark documents them (POST and GET
 * /api/v3/contents/generations/tasks), against the simulator, with Node's own fetch; the output stored as a file.
 */
import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ARK_TASKS_PATH } from '../../platforms/v/wire-types';

export interface FloorActivitiesOptions {
  /** The simulator's V base URL and key. */
  baseUrl: string;
  apiKey: string;
  /** Where outputs are stored. */
  storeDir: string;
}

export function createFloorActivities(opts: FloorActivitiesOptions) {
  const tasks = `${opts.baseUrl}/api/v3${ARK_TASKS_PATH}`;
  const headers = { Authorization: `Bearer ${opts.apiKey}`, 'Content-Type': 'application/json' };
  return {
    async createJob(prompt: string): Promise<string> {
      const r = await fetch(tasks, {
        method: 'POST',
        headers,
        body: JSON.stringify({ model: 'doubao-seedance-1-0-pro-250528', content: [{ type: 'text', text: prompt }], duration: 5 }),
      });
      if (!r.ok) throw new Error(`create answered ${r.status}: ${await r.text()}`);
      return ((await r.json()) as { id: string }).id;
    },
    async readJob(id: string, keep: boolean): Promise<{ status: string; stored?: number }> {
      const r = await fetch(`${tasks}/${id}`, { headers });
      if (!r.ok) throw new Error(`read answered ${r.status}`);
      const task = (await r.json()) as { status: string; content?: { video_url?: string } };
      if (task.status !== 'succeeded' || !keep || !task.content?.video_url) return { status: task.status };
      const output = await fetch(task.content.video_url);
      if (!output.ok || !output.body) throw new Error(`download answered ${output.status}`);
      const file = join(opts.storeDir, `${id}.mp4`);
      await pipeline(Readable.fromWeb(output.body as import('node:stream/web').ReadableStream), createWriteStream(file));
      return { status: task.status, stored: Number(output.headers.get('content-length') ?? 0) };
    },
  };
}

export type FloorActivities = ReturnType<typeof createFloorActivities>;
