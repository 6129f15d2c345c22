/**
 * The general fields of the spec's requests (2.1 video, 2.2 image): those every platform shares, or that the
 * gateway maps onto more than one platform (`ratio`, `last_frame_url`, `images`…). A platform's own fields live
 * in its folder (platforms/<id>/request-fields.ts); the registry assembles the full schemas from both
 * (platforms/index.ts). Rules that depend on the model live with each platform, driven by its catalogue.
 *
 * Unknown fields are rejected with an error naming them: a misspelt option silently ignored would cost the
 * client a paid generation it did not ask for.
 */
import { z } from 'zod';
import { isPrivateHost } from '../core/private-address';

export const MAX_PROMPT_LENGTH = 5_000;
export const MAX_URL_LENGTH = 4_096;
export const MAX_REFERENCE_ITEMS = 10;

/**
 * Input URLs a platform is asked to fetch (reference images, frames, audio): which private origins an operator
 * allows (INPUT_URL_ALLOW_PRIVATE_ORIGINS, for test setups whose "platform" runs on the same network), plus the
 * gateway's own origin for a link to an input it keeps. An argument of the check (privateInputUrl), given by the
 * start path (tasks/start.ts) for each request; STRICT_INPUT_URLS allows none.
 */
export interface InputUrlPolicy {
  allowPrivateOrigins: ReadonlySet<string>;
}

export const STRICT_INPUT_URLS: InputUrlPolicy = { allowPrivateOrigins: new Set() };

const privateHostRefusal = (hostname: string) =>
  `must be a public address: ${hostname} is a private, loopback or local host no platform can fetch (a test setup whose platform runs on the same network lists the origin in the operator's INPUT_URL_ALLOW_PRIVATE_ORIGINS)`;

/** Why a URL is refused before any platform sees it, or undefined when it may be forwarded. */
function urlRefusal(s: string): string | undefined {
  // eslint-disable-next-line no-control-regex -- matching control characters is the point: they are refused
  if (/[\u0000-\u0020\u007f-\u009f\u2028\u2029]/.test(s)) return 'must not contain spaces or control characters';
  let url: URL;
  try {
    url = new URL(s);
  } catch {
    return 'must be an absolute http(s) URL';
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.hostname.length === 0) return 'must be an absolute http(s) URL';
  // The platform would send them on to the host: a client's credentials are never ours to forward.
  if (url.username !== '' || url.password !== '') return 'must not contain a user name or password';
  return undefined;
}

/**
 * Why an input URL (already in its canonical form) is refused under `policy`, or undefined. A platform fetches from
 * the internet: a loopback, private, link-local or metadata address is either unreachable for it (a paid job that
 * fails) or, worse, reachable inside its network. The WHATWG parser has already turned 127.1, 2130706433 and
 * 0x7f.1 into 127.0.0.1, so the dotted form is all there is to check.
 */
function privateHostOf(href: string, policy: InputUrlPolicy): string | undefined {
  let url: URL;
  try {
    url = new URL(href);
  } catch {
    return undefined;
  }
  return isPrivateHost(url.hostname) && !policy.allowPrivateOrigins.has(url.origin) ? privateHostRefusal(url.hostname) : undefined;
}

/** The schemas a value is read through inside `schema` (wrappers, fields, items, union members), with where it is. */
function innerSchemas(schema: z.ZodType, value: unknown): { schema: z.ZodType; value: unknown; key?: string | number }[] {
  const def = schema.def as unknown as Record<string, unknown> & { type: string };
  const of = (s: unknown, v: unknown, key?: string | number) => [
    { schema: s as z.ZodType, value: v, ...(key !== undefined ? { key } : {}) },
  ];
  const isObject = typeof value === 'object' && value !== null && !Array.isArray(value);
  switch (def.type) {
    case 'optional':
    case 'nullable':
    case 'default':
    case 'prefault':
    case 'nonoptional':
    case 'readonly':
    case 'catch':
      return of(def.innerType, value);
    case 'pipe':
      return of(def.in, value);
    case 'lazy':
      return of((def.getter as () => unknown)(), value);
    case 'union':
      return (def.options as z.ZodType[]).map((o) => ({ schema: o, value }));
    case 'intersection':
      return [...of(def.left, value), ...of(def.right, value)];
    case 'array':
      return Array.isArray(value) ? value.flatMap((v, i) => of(def.element, v, i)) : [];
    case 'object': {
      if (!isObject) return [];
      const shape = def.shape as Record<string, z.ZodType>;
      return Object.keys(shape).flatMap((k) => of(shape[k], (value as Record<string, unknown>)[k], k));
    }
    case 'record':
      return isObject ? Object.entries(value).flatMap(([k, v]) => of(def.valueType, v, k)) : [];
    default:
      return [];
  }
}

/**
 * The first input URL (a field read as httpUrl) of a request the schema `schema` has parsed that names a private
 * host `policy` does not allow: its path and why. Checked after the schema, with the policy as an argument.
 */
export function privateInputUrl(
  schema: z.ZodType,
  value: unknown,
  policy: InputUrlPolicy,
  path: (string | number)[] = [],
): { path: (string | number)[]; message: string } | undefined {
  if (value === undefined) return undefined;
  if (schema === httpUrl) {
    const message = typeof value === 'string' ? privateHostOf(value, policy) : undefined;
    return message ? { path, message } : undefined;
  }
  for (const inner of innerSchemas(schema, value)) {
    const found = privateInputUrl(inner.schema, inner.value, policy, inner.key === undefined ? path : [...path, inner.key]);
    if (found) return found;
  }
  return undefined;
}

/**
 * An absolute http(s) URL a platform can fetch, validated and forwarded in the same, canonical form (WHATWG
 * serialisation: `http:/x` becomes `http://x/`, backslashes become slashes). Whitespace and control characters
 * anywhere are refused rather than cleaned up: a CR/LF inside a URL is an injection attempt, not a typo, and
 * never reaches a platform. So are credentials (urlRefusal); private or local hosts are refused after the schema,
 * under the request's policy (privateInputUrl).
 */
export const httpUrl = z
  .string()
  .max(MAX_URL_LENGTH, { message: `must be at most ${MAX_URL_LENGTH} characters` })
  .superRefine((s, ctx) => {
    const refusal = urlRefusal(s);
    if (refusal) ctx.addIssue({ code: 'custom', message: refusal });
  })
  .transform((s) => new URL(s).href)
  .meta({ format: 'uri', description: 'Absolute http(s) URL of a public host, without credentials (forwarded in its canonical form)' });

/**
 * Characters that give a model nothing to read: Unicode white space, format characters (zero-width space, joiners,
 * BOM, soft hyphen), controls, the other default-ignorable code points (Hangul fillers, variation selectors), the
 * blank Braille pattern, combining marks (which only modify a base character; alone they mark nothing),
 * noncharacters (U+FDD0–U+FDEF and the last two code points of every plane: U+FFFE, U+FFFF, U+1FFFE…), which are
 * never text, and private-use characters, which mean something only by a private agreement no model is party to.
 * A prompt of only these reads as empty to a person and to a model alike.
 */
const BLANK = /^[\p{White_Space}\p{Cf}\p{Cc}\p{Default_Ignorable_Code_Point}\u2800\p{M}\p{Noncharacter_Code_Point}\p{Co}]*$/u;

/** A prompt: not blank (a prompt with nothing to read would start a paid job for nothing), at most 5,000 characters. */
export const promptText = z
  .string()
  .max(MAX_PROMPT_LENGTH, { message: `must be at most ${MAX_PROMPT_LENGTH} characters` })
  // Refused in every string of a JSON body already (api/middleware/json-body.ts); a prompt refuses them however
  // it came (a form field too): NUL truncates text in C-based stacks upstream, a lone surrogate is not text.
  .refine((s) => !s.includes('\u0000'), { message: 'contains a NUL character (\\u0000)' })
  .refine((s) => !/\p{Cs}/u.test(s), { message: 'contains an unpaired UTF-16 surrogate, which is not a character' })
  .refine((s) => !BLANK.test(s), {
    message:
      'must not be blank: it holds only white space, invisible or control characters, combining marks without a base, noncharacters or private-use characters',
  })
  .meta({
    description:
      'Must contain a character a model can read: white space, invisible (zero-width, format, default-ignorable) and control characters, combining marks without a base, noncharacters (U+FFFE…) and private-use characters alone are blank',
  });
export const stringBool = z.enum(['true', 'false']);
export const enabledDisabled = z.enum(['Enabled', 'Disabled']);

export const VIDEO_RATIO_VALUES = ['16:9', '9:16', '1:1', '4:3', '3:4'] as const;
export const IMAGE_ROLES = ['first_frame', 'last_frame', 'reference_image'] as const;

/** The common fields of docs/api.md "Video requests" and the general ones the gateway maps onto several platforms. */
export const generalVideoFields = {
  model: z.string().min(1).max(128),
  prompt: promptText.optional(),
  action: z.enum(['image_to_video', 'text_to_video']).optional(),
  duration: z.number().positive().max(600).optional(),
  resolution: z.string().min(1).max(16).optional(),
  image_url: httpUrl.optional(),
  last_frame_url: httpUrl.optional(),
  ratio: z.enum(VIDEO_RATIO_VALUES).optional(),
  generate_audio: z.boolean().optional(),
  images: z
    .array(z.strictObject({ url: httpUrl, role: z.enum(IMAGE_ROLES).default('reference_image') }))
    .min(1)
    .max(MAX_REFERENCE_ITEMS)
    .optional(),
  negative_prompt: promptText.optional(),
  enhance_prompt: enabledDisabled.optional(),
};

/** The fields of docs/api.md "Image requests". */
export const generalImageFields = {
  model: z.string().min(1).max(128),
  prompt: promptText,
  negative_prompt: promptText.optional(),
  size: z.string().min(1).max(16).optional(),
  // Each model's accepted values are its own (GET /v1/models `qualities`); the rule names them.
  quality: z.string().min(1).max(16).optional().describe("standard, hd, or a platform value such as 2K; see the model's qualities"),
  n: z.number().int().min(1).max(4).optional(),
  enhance_prompt: enabledDisabled.optional(),
  /**
   * OpenAI's images API field, so its SDKs work unchanged: results are URLs (`url`, the default); `b64_json` is
   * refused with a message saying so (platforms/validation.ts), never silently answered with URLs.
   */
  response_format: z.enum(['url', 'b64_json']).optional(),
};

/** Fields every platform carries, by kind: never reported as unsupported. */
export const UNIVERSAL_FIELDS = { video: ['model', 'prompt'], image: ['model', 'prompt', 'response_format'] } as const;

export type GeneralVideoField = Exclude<keyof typeof generalVideoFields, (typeof UNIVERSAL_FIELDS.video)[number]>;
export type GeneralImageField = Exclude<keyof typeof generalImageFields, (typeof UNIVERSAL_FIELDS.image)[number]>;

/** A validated video request as a platform sees it: the general fields plus its own (`Own`). */
export type VideoRequestOf<Own extends z.ZodRawShape = Record<never, never>> = { kind: 'video' } & z.infer<
  z.ZodObject<typeof generalVideoFields>
> &
  z.infer<z.ZodObject<Own>>;
/**
 * A validated image request as a platform sees it. `ratio` is the aspect ratio validation derived from `size`
 * (the size table of docs/api.md "Image requests").
 */
export type ImageRequestOf<Own extends z.ZodRawShape = Record<never, never>> = { kind: 'image'; ratio?: string } & z.infer<
  z.ZodObject<typeof generalImageFields>
> &
  z.infer<z.ZodObject<Own>>;
