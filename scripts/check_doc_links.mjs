// Checks the links of README.md and docs/*.md: every relative link names a
// file of this repository, and every #anchor one of that file's headings
// (GitHub's heading ids).  Links to other sites are not followed.  Prints one
// line per broken link and exits 1 if there is any.
//
// Usage: node scripts/check_doc_links.mjs   (from the repository root)
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const root = resolve(dirname(new URL(import.meta.url).pathname), '..');
const files = ['README.md',
    ...readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

// Lines outside fenced code blocks, with inline code spans removed.
function proseLines(text) {
    const out = [];
    let fenced = false;
    for (const line of text.split('\n')) {
        if (/^\s*(```|~~~)/.test(line)) { fenced = !fenced; continue; }
        out.push(fenced ? '' : line.replace(/`[^`]*`/g, ''));
    }
    return out;
}

// GitHub's heading ids: lower case, punctuation dropped, spaces to hyphens,
// "-1", "-2" appended to repeats.
function anchorsOf(path) {
    const seen = new Map();
    const ids = new Set();
    const raw = readFileSync(path, 'utf8').split('\n');
    let fenced = false;
    for (const line of raw) {
        if (/^\s*(```|~~~)/.test(line)) { fenced = !fenced; continue; }
        const m = !fenced && /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
        if (!m) continue;
        const base = m[1].toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, '').replace(/ /g, '-');
        const n = seen.get(base) ?? 0;
        seen.set(base, n + 1);
        ids.add(n === 0 ? base : `${base}-${n}`);
    }
    return ids;
}

let broken = 0;
let checked = 0;
for (const file of files) {
    const lines = proseLines(readFileSync(join(root, file), 'utf8'));
    lines.forEach((line, i) => {
        for (const m of line.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
            const target = m[1];
            if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;   // http:, https:, mailto:
            checked++;
            const [pathPart, anchor] = target.split('#');
            const abs = pathPart ? resolve(root, dirname(file), pathPart) : join(root, file);
            const where = `${file}:${i + 1}: ${target}`;
            if (relative(root, abs).startsWith('..')) {
                console.log(`${where}: outside the repository`); broken++; continue;
            }
            if (!existsSync(abs)) { console.log(`${where}: no such file`); broken++; continue; }
            if (anchor !== undefined && abs.endsWith('.md') && statSync(abs).isFile()
                && !anchorsOf(abs).has(anchor)) {
                console.log(`${where}: no heading #${anchor}`); broken++;
            }
        }
    });
}
console.log(`${files.length} files, ${checked} relative links, ${broken} broken`);
process.exit(broken ? 1 : 0);
