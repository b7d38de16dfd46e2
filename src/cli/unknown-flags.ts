/** yargs' "Unknown argument(s)" message, with the flag each misspelt one was probably meant to be. */
import { nearestName } from '../schema/suggest.ts';

/**
 * `Unknown argument: topologgy` becomes `Unknown argument: topologgy; did you mean --topology?`
 * when `known` (the command's flags) holds a near name. Only for names typed as flags in
 * `argv`: a stray positional gets no flag suggested, but a bare number where the command takes
 * `-n` (`solve 8`) gets `-n 8`.
 */
export function withFlagSuggestions(message: string, known: readonly string[], argv: readonly string[]): string {
  const match = /^Unknown arguments?: (.+)$/.exec(message);
  if (!match) return message;
  // yargs lists a dashed name twice (max-iteratons, maxIteratons): keep the one typed.
  const listed = match[1].split(', ');
  const names = listed.filter((name) => !listed.some((other) => other !== name && other.includes('-') && camelCase(other) === name));
  // --help and --version are never what a misspelt option meant (`--htlm` is --html).
  const candidates = known.filter((k) => k !== 'help' && k !== 'version');
  const spell = (name: string) => (name.length === 1 ? `-${name}` : `--${name}`);
  const hints = names.flatMap((name) => {
    // `solve 8`: the board size as a bare word.
    if (/^\d+$/.test(name) && known.includes('n') && argv.includes(name)) return [`-n ${name}`];
    const typed = spell(name);
    if (!argv.some((arg) => arg === typed || arg.startsWith(`${typed}=`))) return [];
    const near = nearestName(name, candidates);
    return near === null ? [] : [`${spell(near)}${names.length > 1 ? ` for ${typed}` : ''}`];
  });
  const head = `Unknown argument${names.length > 1 ? 's' : ''}: ${names.join(', ')}`;
  return hints.length === 0 ? head : `${head}; did you mean ${hints.join(', ')}?`;
}

function camelCase(name: string): string {
  return name.replace(/-+([^-])/g, (_, c: string) => c.toUpperCase());
}
