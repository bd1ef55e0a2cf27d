import { readFileSync } from 'node:fs';
import { extname, resolve } from 'node:path';

/** A 64x64 camel PNG, the same image as examples/walkthrough.sh. */
const CAMEL_PNG =
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAEAAAABACAMAAACdt4HsAAAAA1BMVEXBmmtm2RvtAAAACXBIWXMAAAPoAAAD6AG1e1JrAAAAG0lEQVRYw+3BgQAAAADDoPlT3+AEVQEAAAB8AxBAAAEZszF2AAAAAElFTkSuQmCC';

/** The image to send: a file given on the command line (JPEG, PNG, WebP, ...) as a data URL, else the camel PNG. */
export function imageFromArgs(argv = process.argv.slice(2)): string {
  const file = argv[0];
  if (!file) return CAMEL_PNG;
  const type = extname(file).slice(1).toLowerCase().replace('jpg', 'jpeg');
  // `npm run` starts in the repository; INIT_CWD is where the command was typed.
  const path = resolve(process.env.INIT_CWD ?? process.cwd(), file);
  return `data:image/${type};base64,${readFileSync(path).toString('base64')}`;
}

/** BASE_URL (default http://localhost:3000) and TASTE_API_KEY, or a one-line explanation and exit 1. */
export function connection(): { baseUrl: string; apiKey: string } {
  const apiKey = process.env.TASTE_API_KEY;
  if (!apiKey) {
    console.error(
      'Set TASTE_API_KEY to an API key (npm run demo prints one): TASTE_API_KEY=tpk_... npm run ...',
    );
    process.exit(1);
  }
  return { baseUrl: (process.env.BASE_URL ?? 'http://localhost:3000').replace(/\/+$/, ''), apiKey };
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
