/**
 * Colour for people: the message prefix and the result's first word, where the stream takes
 * it. Node's own rules decide (`tty.WriteStream.hasColors()`: a terminal, NO_COLOR,
 * NODE_DISABLE_COLORS and FORCE_COLOR, FORCE_COLOR winning as in Node), and `util.styleText`
 * (Node 20.12+) draws. A stream that is not a terminal (a pipe, a file) gets colour only
 * under FORCE_COLOR (1, 2, 3 or empty; 0 and false refuse it). Output captured by `runCli` never does.
 */
import { styleText } from 'node:util';

type Style = Parameters<typeof styleText>[0];

/** Whether text for `stream` may carry colour. */
export function takesColour(stream: NodeJS.WriteStream, env: NodeJS.ProcessEnv = process.env): boolean {
  if (stream.isTTY === true && typeof stream.hasColors === 'function') return stream.hasColors(env);
  const force = env.FORCE_COLOR;
  return force !== undefined && force !== '0' && force !== 'false';
}

/** `text` in `style` when `stream` takes colour (the text is already safe: src/io/terminal.ts). */
export function paint(style: Style, text: string, stream: NodeJS.WriteStream): string {
  // Decided here, for the stream the text goes to (styleText would check stdout, whatever the stream).
  return takesColour(stream) ? styleText(style, text, { validateStream: false }) : text;
}
