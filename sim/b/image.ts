/**
 * `POST /v2/aigc/image` (§2.5, "大模型生图", OpenAI-compatible) [OFF Zmj5q4qb3]:
 *
 *   {"model":"NBP","messages":[{"role":"user","content":[{"type":"text","text":"…"},
 *      {"type":"image_url","image_item":{"image_url":"https://…"}}]}],"n":1,"size":"16:9","quality":"2K"}
 *
 * Exactly one message; `n` 1–4 (NB/NBP only 1); `size` a ratio from the list; `quality` 1K/2K/4K (2K/4K only
 * NBP); reference images ≤ 3 on NB, ≤ 14 on NBP, none on I4* (no image-to-image); `response_modalities` must
 * contain "IMAGE"; `tools` NBP only. Unknown fields are ignored and recorded, as for videos; the output (count,
 * pixel size) follows the recognised fields only.
 */
import { inappropriate } from './errors';
import {
  IMAGE_CONTENT_TYPES,
  IMAGE_DEFAULT_QUALITY,
  IMAGE_DEFAULT_SIZE,
  IMAGE_FIELDS,
  IMAGE_MODELS,
  IMAGE_QUALITIES,
  IMAGE_SIZES,
  imagePixels,
  type ImageModel,
} from './models';
import { isHttpUrl, isObject } from '../json';
import type { FieldReport } from './validation';

export interface ImageOutput {
  mediaType: 'image';
  n: number;
  size: string;
  quality: string;
  widthInPixel: number;
  heightInPixel: number;
}

export interface ImageCreate {
  model: ImageModel;
  prompt: string;
  referenceImages: number;
  fields: FieldReport;
  output: ImageOutput;
}

/**
 * `videoGenerateTaskInput` of an image task: not documented. [GUESS] "文生图" / "图生图" (with reference images)
 * and the request under `imageGenerateRequest`, by analogy with 文生视频/textToVideoRequest.
 */
export function imageInputType(referenceImages: number): { label: string; requestKey: string } {
  return { label: referenceImages > 0 ? '图生图' : '文生图', requestKey: 'imageGenerateRequest' };
}

/** The prompt of an image create (its text items), for directives, before any validation. */
export function imagePromptOf(body: unknown): string {
  if (!isObject(body) || !Array.isArray(body.messages)) return '';
  const content = isObject(body.messages[0]) ? body.messages[0].content : undefined;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter((c): c is Record<string, unknown> => isObject(c) && c.type === 'text' && typeof c.text === 'string')
    .map((c) => c.text as string)
    .join('\n');
}

export function validateImageCreate(body: unknown): ImageCreate {
  if (!isObject(body)) throw inappropriate('The request body must be a JSON object');
  const fields: FieldReport = { recognised: [], ignored: [] };
  const known = new Set(IMAGE_FIELDS.map((f) => f.name));
  for (const [k, v] of Object.entries(body)) {
    if (known.has(k) && v !== null) fields.recognised.push(k);
    else fields.ignored.push(k);
  }
  const has = (k: string) => body[k] !== undefined && body[k] !== null;

  if (!has('model')) throw inappropriate('model is required');
  if (typeof body.model !== 'string') throw inappropriate('model must be a string');
  const model = IMAGE_MODELS.get(body.model);
  if (!model) throw inappropriate(`model ${body.model} is not supported by image`);

  const { prompt, references } = readMessages(body.messages, fields);
  if (references > 0 && model.maxInputImages === 0)
    throw inappropriate(`model ${model.code} does not support image-to-image (reference images)`);
  if (references > model.maxInputImages) throw inappropriate(`model ${model.code} accepts at most ${model.maxInputImages} input images`);

  let n = 1;
  if (has('n')) {
    if (typeof body.n !== 'number' || !Number.isInteger(body.n)) throw inappropriate('n must be an integer');
    if (body.n < 1 || body.n > 4) throw inappropriate('n must be between 1 and 4');
    if (body.n > model.maxN) throw inappropriate(`n must be 1 for model ${model.code}`);
    n = body.n;
  }
  let size: string = IMAGE_DEFAULT_SIZE;
  if (has('size')) {
    if (typeof body.size !== 'string' || !(IMAGE_SIZES as readonly string[]).includes(body.size)) {
      throw inappropriate(`size must be one of ${IMAGE_SIZES.join(', ')}`);
    }
    size = body.size;
  }
  let quality: string = IMAGE_DEFAULT_QUALITY;
  if (has('quality')) {
    if (typeof body.quality !== 'string' || !(IMAGE_QUALITIES as readonly string[]).includes(body.quality)) {
      throw inappropriate(`quality must be one of ${IMAGE_QUALITIES.join(', ')}`);
    }
    if (!model.qualities.includes(body.quality))
      throw inappropriate(`quality ${body.quality} is not supported by model ${model.code} (${model.qualities.join(', ')})`);
    quality = body.quality;
  }
  if (has('response_modalities')) {
    const rm = body.response_modalities;
    if (!Array.isArray(rm) || !rm.every((x) => typeof x === 'string'))
      throw inappropriate('response_modalities must be an array of strings');
    if (!rm.includes('IMAGE')) throw inappropriate('response_modalities must contain "IMAGE"');
  }
  if (has('tools')) {
    if (!Array.isArray(body.tools)) throw inappropriate('tools must be an array');
    if (body.tools.length > 0 && !model.tools) throw inappropriate(`tools are supported only by model NBP, not ${model.code}`);
  }

  const px = imagePixels(quality, size);
  return {
    model,
    prompt,
    referenceImages: references,
    fields,
    output: { mediaType: 'image', n, size, quality, widthInPixel: px.width, heightInPixel: px.height },
  };
}

/** Exactly one message: its text items make the prompt, its image items are the reference images. */
function readMessages(messages: unknown, fields: FieldReport): { prompt: string; references: number } {
  if (messages === undefined || messages === null) throw inappropriate('messages is required');
  if (!Array.isArray(messages)) throw inappropriate('messages must be an array');
  if (messages.length !== 1) throw inappropriate('messages must contain exactly one message');
  const message = messages[0];
  if (!isObject(message)) throw inappropriate('messages[0] must be an object');
  for (const k of Object.keys(message)) if (k !== 'role' && k !== 'content') fields.ignored.push(`messages[0].${k}`);
  // OpenAI-compatible: the one message is the user's [INF].
  if (message.role !== 'user') throw inappropriate('messages[0].role must be "user"');
  const content = message.content;
  // OpenAI-compatible APIs also take a plain string as the content [INF].
  if (typeof content === 'string') {
    if (content.trim() === '') throw inappropriate('messages[0].content must contain a text item');
    return { prompt: content, references: 0 };
  }
  if (!Array.isArray(content) || content.length === 0) throw inappropriate('messages[0].content must be a non-empty array');
  const texts: string[] = [];
  let references = 0;
  content.forEach((item, i) => {
    const path = `messages[0].content[${i}]`;
    if (!isObject(item)) throw inappropriate(`${path} must be an object`);
    if (typeof item.type !== 'string' || !(IMAGE_CONTENT_TYPES as readonly string[]).includes(item.type)) {
      throw inappropriate(`${path}.type must be one of ${IMAGE_CONTENT_TYPES.join(', ')}`);
    }
    if (item.type === 'text') {
      for (const k of Object.keys(item)) if (k !== 'type' && k !== 'text') fields.ignored.push(`${path}.${k}`);
      if (typeof item.text !== 'string') throw inappropriate(`${path}.text must be a string`);
      texts.push(item.text);
      return;
    }
    for (const k of Object.keys(item)) if (k !== 'type' && k !== 'image_item') fields.ignored.push(`${path}.${k}`);
    const imageItem = item.image_item;
    if (!isObject(imageItem)) throw inappropriate(`${path}.image_item must be an object`);
    const want = item.type === 'image_url' ? 'image_url' : 'image_base64';
    for (const k of Object.keys(imageItem)) if (k !== want) fields.ignored.push(`${path}.image_item.${k}`);
    if (want === 'image_url' && !isHttpUrl(imageItem.image_url)) throw inappropriate(`${path}.image_item.image_url must be an http(s) URL`);
    if (want === 'image_base64' && (typeof imageItem.image_base64 !== 'string' || !/^[A-Za-z0-9+/=\s]+$/.test(imageItem.image_base64))) {
      throw inappropriate(`${path}.image_item.image_base64 must be base64 data`);
    }
    references++;
  });
  const prompt = texts.join('\n');
  if (prompt.trim() === '') throw inappropriate('messages[0].content must contain a non-empty text item');
  return { prompt, references };
}
