// M3U playlists (issue 31): the parser's edge cases, ids and merging, each malformed line as a
// diagnostic at its place, playlists named by URL (served here on 127.0.0.1), incremental builds,
// and a generated playlist of 140 channels walked by the real client core on nginx set up like
// GitHub Pages under /repo/. Expectations come from this file's own data, never from the build.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { build } from '../src/build/index.js';
import { parsePlaylist } from '../src/load/m3u-parse.js';
import { startServer } from '../src/serve/index.js';
import { stateFileOf } from '../src/write/state.js';
import { channelsOf, channelValue, DEFAULT_PLAYLIST_SETTINGS } from '../src/load/m3u.js';
import { walkAddon } from './support/client-walk.js';
import { addonYaml, contentDir, readTree, tempDir } from './support/content.js';
import { startNginx } from './support/nginx.js';
import { BROWSER_ORIGIN, startCore, type Json } from './support/stremio-core.js';
import { freePort } from './support/wrangler.js';

const TV_CATALOG = 'catalogs:\n  - { id: channels, type: tv, name: Channels, genres: auto }\n';

/** The values the source makes of a playlist's text, with the default settings. */
function valuesOf(text: string) {
  const parsed = parsePlaylist(text);
  return { problems: parsed.problems, values: channelsOf(parsed).map((channel) => channelValue(channel, DEFAULT_PLAYLIST_SETTINGS)) };
}

describe('reading a playlist', () => {
  it('reads quoted values with commas, & and quotes, the title after the first comma outside quotes, CRLF and a BOM', () => {
    const text =
      '\uFEFF#EXTM3U x-tvg-url="https://e.org/epg.xml"\r\n' +
      '#EXTINF:-1 tvg-id="a.uk" tvg-name="Tom, \\"Jerry\\" & Co" tvg-logo="https://e.org/a.png" group-title="Kids, Family",Tom, "Jerry" & Co\r\n' +
      'https://e.org/a.m3u8\r\n' +
      '\r\n' +
      '# a comment\r\n' +
      '#EXTINF:0 group-title="Films "Noirs" Club",Télé Café\r\n' +
      'http://e.org/b.ts\r\n';
    const { problems, values } = valuesOf(text);
    expect(problems).toEqual([]);
    expect(values).toEqual([
      {
        id: 'iptv:a.uk',
        type: 'tv',
        name: 'Tom, "Jerry" & Co',
        poster: 'https://e.org/a.png',
        posterShape: 'square',
        logo: 'https://e.org/a.png',
        genres: ['Kids, Family'],
        streams: [{ url: 'https://e.org/a.m3u8', name: 'Tom, "Jerry" & Co' }],
      },
      {
        id: 'iptv:tele-cafe',
        type: 'tv',
        name: 'Télé Café',
        genres: ['Films "Noirs" Club'],
        streams: [{ url: 'http://e.org/b.ts', name: 'Télé Café' }],
      },
    ]);
  });

  it('merges entries of one id into one item with a stream each, and takes #EXTVLCOPT headers onto their stream', () => {
    const text = [
      '#EXTM3U',
      '#EXTINF:-1 tvg-id="news" group-title="News",News HD',
      '#EXTVLCOPT:http-user-agent=Mozilla/5.0 (X11)',
      '#EXTVLCOPT:http-referrer=https://e.org/',
      'https://e.org/news-hd.m3u8',
      '#EXTINF:-1,Other',
      'https://e.org/other.ts',
      '#EXTINF:-1 tvg-id="news" group-title="World;News",News SD',
      '#EXTVLCOPT:http-referer=https://r.org/',
      'https://e.org/news-sd.ts',
      '#EXTINF:-1,Other',
      'https://e.org/other-2.ts',
    ].join('\n');
    const { problems, values } = valuesOf(text);
    expect(problems).toEqual([]);
    expect(values).toEqual([
      {
        id: 'iptv:news',
        type: 'tv',
        name: 'News HD',
        genres: ['News', 'World'],
        streams: [
          {
            url: 'https://e.org/news-hd.m3u8',
            name: 'News HD',
            behaviorHints: { notWebReady: true, proxyHeaders: { request: { 'User-Agent': 'Mozilla/5.0 (X11)', Referer: 'https://e.org/' } } },
          },
          {
            url: 'https://e.org/news-sd.ts',
            name: 'News SD',
            behaviorHints: { notWebReady: true, proxyHeaders: { request: { Referer: 'https://r.org/' } } },
          },
        ],
      },
      {
        id: 'iptv:other',
        type: 'tv',
        name: 'Other',
        streams: [
          { url: 'https://e.org/other.ts', name: 'Other' },
          { url: 'https://e.org/other-2.ts', name: 'Other' },
        ],
      },
    ]);
  });

  it('gives #EXTVLCOPT lines after a URL to the next channel, as VLC does, with a warning where the playlist also puts them after #EXTINF; one ending the file to none', async () => {
    const dir = await contentDir({
      'addon.yaml': addonYaml(TV_CATALOG),
      'c.m3u': [
        '#EXTM3U', // 1
        '#EXTVLCOPT:http-user-agent=FirstUA', // 2: before any URL: One's, silently
        '#EXTINF:-1,One', // 3
        'https://e.org/1.m3u8', // 4
        '#EXTVLCOPT:http-referrer=https://one.example/', // 5: after One's URL: Two's, with a warning (line 8)
        '#EXTGRP:News', // 6: before an #EXTINF: Two's, silently
        '#EXTINF:-1,Two', // 7
        '#EXTVLCOPT:http-user-agent=TwoUA', // 8: between #EXTINF and URL: Two's, silently
        'https://e.org/2.m3u8', // 9
        'https://e.org/orphan.m3u8', // 10: no #EXTINF, so no channel
        '#EXTVLCOPT:http-referrer=https://none.example/', // 11: after a URL that makes no channel: Three's
        '#EXTINF:-1,Three', // 12
        'https://e.org/3.m3u8', // 13
        '  #EXTVLCOPT:http-referrer=https://three.example/', // 14: ends the file
      ].join('\n'),
    });
    const out = await tempDir();
    const result = await build({ contentDir: dir, outDir: out });
    const file = path.join(dir, 'c.m3u');
    expect(result.diagnostics.map((d) => [d.code, d.file, d.line, d.column, d.message])).toEqual([
      [
        'playlist-attribute',
        file,
        5,
        1,
        'this #EXTVLCOPT:http-referrer line comes after the URL of "One" (line 4): as VLC reads it, it applies to the channel after it, "Two"',
      ],
      ['playlist-syntax', file, 10, 1, 'the URL https://e.org/orphan.m3u8 has no #EXTINF line before it: there is no channel for it'],
      [
        'playlist-attribute',
        file,
        11,
        1,
        'this #EXTVLCOPT:http-referrer line comes after the URL of line 10: as VLC reads it, it applies to the channel after it, "Three"',
      ],
      [
        'playlist-attribute',
        file,
        14,
        3,
        'this #EXTVLCOPT:http-referrer line comes after the URL of "Three" (line 13), and no channel follows it: it applies to none',
      ],
    ]);
    expect(result.diagnostics[0]!.hint).toBe(
      "this playlist puts such lines between a channel's #EXTINF line and its URL elsewhere: put this one there too, below the #EXTINF line of the channel it is for",
    );
    expect(result.diagnostics[3]!.hint).toBe("move it between the #EXTINF line of the channel it is for and that channel's URL");
    // The orphan URL is an error: the channels are read as the build would have made them.
    const text = await readFile(file, 'utf8');
    const values = channelsOf(parsePlaylist(text)).map((channel) => channelValue(channel, DEFAULT_PLAYLIST_SETTINGS));
    const request = (headers: Record<string, string>) => ({ behaviorHints: { notWebReady: true, proxyHeaders: { request: headers } } });
    expect(values.map((v) => [v.name, v.genres, v.streams])).toEqual([
      ['One', undefined, [{ url: 'https://e.org/1.m3u8', name: 'One', ...request({ 'User-Agent': 'FirstUA' }) }]],
      ['Two', ['News'], [{ url: 'https://e.org/2.m3u8', name: 'Two', ...request({ Referer: 'https://one.example/', 'User-Agent': 'TwoUA' }) }]],
      ['Three', undefined, [{ url: 'https://e.org/3.m3u8', name: 'Three', ...request({ Referer: 'https://none.example/' }) }]],
    ]);
  });

  it('warns of a line after a URL also when the playlist puts such lines after #EXTINF only further down', () => {
    const text = [
      '#EXTINF:-1,One',
      'https://e.org/1.m3u8',
      '#EXTVLCOPT:http-user-agent=A',
      '#EXTINF:-1,Two',
      'https://e.org/2.m3u8',
      '#EXTINF:-1,Three',
      '#EXTVLCOPT:http-user-agent=C',
      'https://e.org/3.m3u8',
    ].join('\n');
    const parsed = parsePlaylist(text);
    expect(parsed.problems.map((p) => [p.code, p.line])).toEqual([['playlist-attribute', 3]]);
    expect(parsed.entries.map((e) => [e.title, e.headers.userAgent])).toEqual([
      ['One', undefined],
      ['Two', 'A'],
      ['Three', 'C'],
    ]);
  });

  it('reads a playlist that puts each #EXTVLCOPT line before its #EXTINF line as VLC does, without a word', async () => {
    const text = [
      '#EXTM3U',
      '#EXTVLCOPT:http-user-agent=A',
      '#EXTINF:-1,One',
      'https://e.org/1.m3u8',
      '#EXTVLCOPT:http-user-agent=B',
      '#EXTINF:-1,Two',
      'https://e.org/2.m3u8',
    ].join('\n');
    const parsed = parsePlaylist(text);
    expect(parsed.problems).toEqual([]);
    expect(parsed.entries.map((e) => [e.title, e.headers.userAgent])).toEqual([
      ['One', 'A'],
      ['Two', 'B'],
    ]);
  });

  it('gives different names of one slug ids that do not depend on their order', () => {
    const a = '#EXTINF:-1,Café\nhttp://e.org/1.ts\n';
    const b = '#EXTINF:-1,Cafe\nhttp://e.org/2.ts\n';
    const ids = (text: string) => valuesOf(text).values.map((v) => `${v.name as string}=${v.id as string}`);
    const forward = ids(a + b);
    expect(forward).toHaveLength(2);
    expect(forward[0]).toMatch(/^Café=iptv:cafe-[0-9a-f]{6}$/);
    expect(forward[1]).toMatch(/^Cafe=iptv:cafe-[0-9a-f]{6}$/);
    expect(new Set(forward).size).toBe(2);
    expect(ids(b + a).sort()).toEqual([...forward].sort());
    // Alone, a name takes the plain slug; a name without a-z or 0-9 gets a hash.
    expect(ids(a)).toEqual(['Café=iptv:cafe']);
    expect(ids('#EXTINF:-1,日本\nhttp://e.org/3.ts\n')[0]).toMatch(/^日本=iptv:channel-[0-9a-f]{6}$/);
  });

  it('reports each malformed line with its line and column', () => {
    const text = [
      '#EXTM3U', // 1
      'http://e.org/orphan.ts', // 2: no #EXTINF
      '#EXTINF:-1 tvg-id="x" group-title="News,News', // 3: quote never closes
      'http://e.org/x.ts', // 4
      '#EXTINF:-1 tvg-id="y"', // 5: no comma
      'http://e.org/y.ts', // 6
      '#EXTINF:-1 tvg-id="z",', // 7: no name
      'http://e.org/z.ts', // 8
      '#EXTINF:abc,Fine', // 9: not a duration, which is not used: fine
      'http://e.org/f.ts', // 10
      '#EXTINF:-1 junk tvg-id="w",W', // 11: not key=value
      'http://e.org/w.ts', // 12
      '#EXTVLCOPT:noequals', // 13
      '#EXTINF:-1 tvg-chno="5" tvg-epg="q",V', // 14: tvg-chno is ignored silently, tvg-epg is not
      '#EXTVLCOPT:http-proxy=x', // 15
      'http://e.org/v.ts', // 16
      '#EXTINF:-1,Last', // 17: no URL after it
    ].join('\n');
    const found = parsePlaylist(text).problems.map((p) => [p.code, p.params.kind, p.line, p.column]);
    expect(found).toEqual([
      ['playlist-syntax', 'url-without-extinf', 2, 1],
      ['playlist-syntax', 'unterminated-quote', 3, 35],
      ['playlist-syntax', 'no-comma', 5, 22],
      ['playlist-syntax', 'no-title', 7, 23],
      ['playlist-syntax', 'bad-attribute', 11, 12],
      ['playlist-syntax', 'bad-option', 13, 1],
      ['playlist-attribute', 'attribute', 14, 25],
      ['playlist-attribute', 'option', 15, 12],
      ['playlist-syntax', 'extinf-without-url', 17, 1],
    ]);
  });
});

describe('quotes, durations, file names and ids', () => {
  it('reads values closed right before the next attribute, in single quotes, and unquoted', () => {
    const { problems, values } = valuesOf(
      [
        `#EXTINF:-1 tvg-id="a"tvg-name="b" group-title="News",X`,
        'http://e.org/x.ts',
        `#EXTINF:-1 tvg-id='y' group-title='Kids, Family' tvg-name='O\\'Brien',Y`,
        'http://e.org/y.ts',
        '#EXTINF:-1 tvg-id=z group-title=Sport,Z',
        'http://e.org/z.ts',
      ].join('\n'),
    );
    expect(problems).toEqual([]);
    expect(values.map((v) => [v.id, v.genres])).toEqual([
      ['iptv:a', ['News']],
      ['iptv:y', ['Kids, Family']],
      ['iptv:z', ['Sport']],
    ]);
    const parsed = parsePlaylist(`#EXTINF:-1 tvg-id="a"tvg-name="b",X\nhttp://e.org/x.ts\n#EXTINF:-1 tvg-name='O\\'Brien',\nhttp://e.org/o.ts\n`);
    expect(parsed.entries.map((e) => Object.fromEntries([...e.attributes].map(([k, a]) => [k, a.value])))).toEqual([
      { 'tvg-id': 'a', 'tvg-name': 'b' },
      { 'tvg-name': "O'Brien" },
    ]);
  });

  it('takes any duration, or none, with spaces after the colon', () => {
    const { problems, values } = valuesOf(
      '#EXTINF:,A\nhttp://e.org/a.ts\n#EXTINF: -1,B\nhttp://e.org/b.ts\n#EXTINF:tvg-id="c",C\nhttp://e.org/c.ts\n#EXTINF:x,D\nhttp://e.org/d.ts\n',
    );
    expect(problems).toEqual([]);
    expect(values.map((v) => v.id)).toEqual(['iptv:a', 'iptv:b', 'iptv:c', 'iptv:d']);
  });

  it('makes the id of a tvg-id that cannot be a file name of the name, with a warning, and genres of groups with /', () => {
    const text =
      '#EXTINF:-1 tvg-id="a/b" group-title="Movies/Series;A\\B",Film Club\nhttp://e.org/f.ts\n#EXTINF:-1 tvg-id="..",Dots\nhttp://e.org/d.ts\n';
    const { problems, values } = valuesOf(text);
    expect(problems.map((p) => [p.code, p.params.kind, p.line, p.column])).toEqual([
      ['playlist-attribute', 'bad-id', 1, 12],
      ['playlist-attribute', 'bad-id', 3, 12],
    ]);
    expect(values.map((v) => [v.id, v.genres])).toEqual([
      ['iptv:film-club', ['Movies-Series', 'A-B']],
      ['iptv:dots', undefined],
    ]);
  });

  it('counts the id prefix in the length of a tvg-id, and cuts the slug of a long name, with a hash, to fit a file name', async () => {
    const longName = 'Long Name '.repeat(40).trim();
    const dir = await contentDir({
      'addon.yaml': addonYaml(TV_CATALOG),
      'c.m3u': `#EXTINF:-1 tvg-id="${'x'.repeat(198)}",Ch\nhttps://e.org/x.m3u8\n#EXTINF:-1,${longName}\nhttps://e.org/l.m3u8\n`,
    });
    const out = await tempDir();
    const result = await build({ contentDir: dir, outDir: out });
    expect(result.diagnostics.map((d) => [d.code, d.line, d.column, d.message, d.hint])).toEqual([
      [
        'playlist-attribute',
        1,
        12,
        `the tvg-id "${'x'.repeat(40)}…" is 198 bytes, so the id made of it with the prefix iptv: would be 203, and an id is a file name, of at most 200 bytes: the channel's id is made of its name instead`,
        'shorten the tvg-id to at most 195 bytes (the prefix iptv: takes the rest), or remove it to keep the id made of the name',
      ],
    ]);
    const ids = JSON.parse((await readTree(out)).get('catalog/tv/channels.json')!.toString()).metas.map((m: Json) => m.id as string);
    expect(ids).toHaveLength(2);
    expect(ids).toContain('iptv:ch');
    const long = ids.find((id: string) => id !== 'iptv:ch')!;
    // 195 bytes after the prefix: 188 of the slug, cut at a letter, then - and the hash.
    expect(long).toMatch(new RegExp(`^iptv:${'long-name-'.repeat(18)}long-nam-[0-9a-f]{6}$`));
    expect(Buffer.byteLength(long)).toBe(200);
    // The prefix of the playlist's settings counts, whatever it is: "tv:" leaves 197 bytes.
    const kinds = (n: number) =>
      parsePlaylist(`#EXTINF:-1 tvg-id="${'y'.repeat(n)}",Y\nhttps://e.org/y.ts\n`, 'tv:').problems.map((p) => p.params.kind);
    expect([kinds(197), kinds(198)]).toEqual([[], ['long-id']]);
  });

  it('never merges a channel without tvg-id into one whose tvg-id is its slug', () => {
    const a = '#EXTINF:-1 tvg-id="news",World News\nhttp://e.org/1.ts\n';
    const b = '#EXTINF:-1,News\nhttp://e.org/2.ts\n';
    for (const text of [a + b, b + a]) {
      const ids = valuesOf(text)
        .values.map((v) => `${v.name as string}=${v.id as string}`)
        .sort();
      expect(ids).toHaveLength(2);
      expect(ids[0]).toMatch(/^News=iptv:news-[0-9a-f]{6}$/);
      expect(ids[1]).toBe('World News=iptv:news');
    }
  });
});

describe("Kodi's headers after the URL, and #EXTHTTP", () => {
  it('takes |User-Agent=…&Referer=… and other headers onto the stream, and warns on #EXTHTTP', () => {
    const text = [
      '#EXTINF:-1,K',
      'https://e.org/k.m3u8|User-Agent=VLC%2F3.0&Referer=https%3A%2F%2Fr.org%2F&Origin=https://r.org',
      '#EXTINF:-1,L',
      '#EXTHTTP:{"cookie":"a=b"}',
      'https://e.org/l.m3u8|junk',
    ].join('\n');
    const { problems, values } = valuesOf(text);
    expect(problems.map((p) => [p.code, p.params.kind, p.line, p.column])).toEqual([
      ['playlist-attribute', 'exthttp', 4, 1],
      ['playlist-syntax', 'bad-header', 5, 22],
    ]);
    expect(values.map((v) => v.streams)).toEqual([
      [
        {
          url: 'https://e.org/k.m3u8',
          name: 'K',
          behaviorHints: {
            notWebReady: true,
            proxyHeaders: { request: { Origin: 'https://r.org', 'User-Agent': 'VLC/3.0', Referer: 'https://r.org/' } },
          },
        },
      ],
      [{ url: 'https://e.org/l.m3u8', name: 'L' }],
    ]);
  });

  it('checks the headers after the URL like any stream header: a credential in one is an error', async () => {
    const dir = await contentDir({
      'addon.yaml': addonYaml(TV_CATALOG),
      'tv.m3u': '#EXTINF:-1,K\nhttps://e.org/k.m3u8|Authorization=Bearer%20abcdefghijklmnop\n',
    });
    const result = await build({ contentDir: dir, outDir: path.join(await tempDir(), 'dist') });
    expect(result.ok).toBe(false);
    expect(result.diagnostics.map((d) => [d.code, d.line])).toContainEqual(['credentials-in-output', 2]);
  });
});

describe('hostile playlists', () => {
  it('keeps at most the limit of problems of a line of megabytes of them, and counts the rest', () => {
    const started = performance.now();
    const parsed = parsePlaylist(`#EXTINF:-1 ${'k '.repeat(2_000_000)},N\nhttp://e.org/a.ts\n`);
    expect(performance.now() - started).toBeLessThan(3000);
    expect(parsed.problems).toHaveLength(100);
    expect(parsed.omitted).toEqual({ error: 2_000_000 - 100, warning: 0 });
  });

  it('reads lines of megabytes of attributes, quotes or commas in linear time', () => {
    for (const line of [
      `#EXTINF:-1 ${'tvg-x="y" '.repeat(200_000)},Name`,
      `#EXTINF:-1 tvg-name="${'"'.repeat(2_000_000)}`,
      `#EXTINF:-1 tvg-name="${'a" '.repeat(700_000)}",N`,
      `#EXTINF:-1 ${'k=v'.repeat(700_000)}`,
    ]) {
      const started = performance.now();
      parsePlaylist(`${line}\nhttp://e.org/a.ts\n`);
      expect(performance.now() - started, line.slice(0, 30)).toBeLessThan(3000);
    }
  });
});

describe('building playlists', () => {
  it('locates each problem in its playlist, and writes nothing', async () => {
    const dir = await contentDir({
      'addon.yaml': addonYaml(TV_CATALOG),
      'tv/list.M3U8': '#EXTM3U\n#EXTINF:-1 tvg-id="a/b",A\nhttp://e.org/a.ts\n#EXTINF:-1 tvg-id="c",C\nnot a url\n#EXTINF:-1,D\n',
    });
    const out = path.join(await tempDir(), 'dist');
    const result = await build({ contentDir: dir, outDir: out });
    expect(result.ok).toBe(false);
    const file = path.join(dir, 'tv/list.M3U8');
    expect(result.diagnostics.map((d) => [d.code, d.file, d.line, d.column]).sort((a, b) => Number(a[2]) - Number(b[2]))).toEqual([
      ['playlist-attribute', file, 2, 12],
      ['missing-asset', file, 5, 1],
      ['playlist-syntax', file, 6, 1],
    ]);
    await expect(readTree(out)).rejects.toThrow();
  });

  it('reports an HLS stream playlist in the content folder once, at its tag, not its segments as channels; skipped in a . folder', async () => {
    const hls = {
      'master.m3u8': '#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-STREAM-INF:BANDWIDTH=800000,RESOLUTION=640x360\nlow/index.m3u8\n',
      'low/index.m3u8': '#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:10\n#EXTINF:10.0,\nseg0.ts\n#EXTINF:10.0,\nseg1.ts\n#EXT-X-ENDLIST\n',
      'low/seg0.ts': 'not a real segment',
    };
    const channels = { 'addon.yaml': addonYaml(TV_CATALOG), 'tv.m3u': '#EXTINF:-1,A\nhttps://e.org/a/master.m3u8\n' };
    const inFolder = (folder: string) => Object.fromEntries(Object.entries(hls).map(([file, text]) => [`${folder}/${file}`, text]));
    const dir = await contentDir({ ...channels, ...inFolder('hls') });
    const out = path.join(await tempDir(), 'dist');
    const result = await build({ contentDir: dir, outDir: out });
    expect(result.ok).toBe(false);
    const found = result.diagnostics.map((d) => [d.code, path.relative(dir, d.file!), d.line, d.column, d.message]);
    expect(found.sort((a, b) => String(a[1]).localeCompare(String(b[1])))).toEqual([
      [
        'hls-playlist',
        'hls/low/index.m3u8',
        3,
        1,
        'this is an HLS stream playlist (#EXT-X-TARGETDURATION: a media playlist, the segments of one stream), not a list of channels',
      ],
      [
        'hls-playlist',
        'hls/master.m3u8',
        3,
        1,
        'this is an HLS stream playlist (#EXT-X-STREAM-INF: a master playlist, the renditions of one stream), not a list of channels',
      ],
    ]);
    expect(result.diagnostics[0]!.hint).toMatch(/^addon-gen does not publish HLS media from the content folder: host the stream elsewhere/);
    await expect(readTree(out)).rejects.toThrow();
    // Kept out of the content folder, in a folder whose name starts with a dot: built without a word.
    const kept = await contentDir({ ...channels, ...inFolder('.hls') });
    expect((await build({ contentDir: kept, outDir: path.join(await tempDir(), 'dist') })).diagnostics).toEqual([]);
  });

  it('reports a missing tvg-logo file once, though it is both the poster and the logo', async () => {
    const dir = await contentDir({
      'addon.yaml': addonYaml(TV_CATALOG),
      'c.m3u': '#EXTINF:-1 tvg-logo="logos/a.png",A\nhttps://e.org/a.m3u8\n',
    });
    const result = await build({ contentDir: dir, outDir: await tempDir() });
    expect(result.diagnostics.map((d) => [d.code, d.file, d.line, d.column, d.path])).toEqual([
      ['missing-asset', path.join(dir, 'c.m3u'), 1, 12, 'poster'],
    ]);
  });

  it('words the hints of a playlist for a playlist, not for YAML: a missing file, bytes that are not UTF-8', async () => {
    const dir = await contentDir({
      'addon.yaml': addonYaml(TV_CATALOG),
      'a.m3u': '#EXTINF:-1,A\nlive/a.m3u8\n',
      'b.m3u': Buffer.from('#EXTINF:-1,T\u00e9l\u00e9\nhttps://e.org/b.m3u8\n', 'latin1'),
    });
    const result = await build({ contentDir: dir, outDir: await tempDir() });
    const found = result.diagnostics.map((d) => [d.code, path.basename(d.file!), d.message.replace(/\(looked for .*\)/, '(…)'), d.hint]);
    expect(found.sort((a, b) => a[1]!.localeCompare(b[1]!))).toEqual([
      [
        'missing-asset',
        'a.m3u',
        '"live/a.m3u8" is neither a URL nor an existing file (…)',
        'check the spelling and that the path is relative to the folder of this file; URLs need their scheme (https://…)',
      ],
      [
        'invalid-utf8',
        'b.m3u',
        'byte 0xe9 at offset 12 is not UTF-8; content files (YAML, playlists, tables) must be UTF-8 text',
        'save the file as UTF-8; it was probably written as Latin-1 or Windows-1252 (é, ü, ß become single bytes there)',
      ],
    ]);
  });

  it('applies the settings of addon.yaml: type, id prefix and catalog', async () => {
    const dir = await contentDir({
      'addon.yaml': addonYaml(
        'catalogs:\n  - { id: radio, type: channel, name: Radio }\n  - { id: other, type: channel, name: Other }\n' +
          'playlists:\n  - { file: ./radio.m3u, type: channel, idPrefix: "fm:", catalog: radio }\n',
      ),
      'radio.m3u': '#EXTM3U\n#EXTINF:-1 radio="true",Jazz FM\nhttp://e.org/jazz.mp3\n',
    });
    const out = await tempDir();
    const result = await build({ contentDir: dir, outDir: out });
    expect(result.diagnostics).toEqual([]);
    const tree = await readTree(out);
    expect(JSON.parse(tree.get('catalog/channel/radio.json')!.toString()).metas.map((m: Json) => m.id)).toEqual(['fm:jazz-fm']);
    expect(JSON.parse(tree.get('catalog/channel/other.json')!.toString()).metas).toEqual([]);
  });

  it('reports a catalog the settings name that addon.yaml does not declare once, at its line', async () => {
    const dir = await contentDir({
      'addon.yaml': addonYaml(`${TV_CATALOG}playlists:\n  - { file: tv.m3u, catalog: chanels }\n`),
      'tv.m3u': '#EXTINF:-1,A\nhttp://e.org/a.ts\n#EXTINF:-1,B\nhttp://e.org/b.ts\n',
    });
    const result = await build({ contentDir: dir });
    expect(result.diagnostics).toMatchObject([
      {
        code: 'unknown-catalog',
        file: path.join(dir, 'addon.yaml'),
        line: 8,
        column: 30,
        path: 'playlists[0].catalog',
        hint: 'did you mean "channels"?',
      },
    ]);
  });

  it('reports an id prefix that cannot start a file name once, at its line in addon.yaml, not at each channel', async () => {
    const dir = await contentDir({
      'addon.yaml': addonYaml(`${TV_CATALOG}playlists:\n  - { file: c.m3u, idPrefix: "a/b:" }\n`),
      'c.m3u': '#EXTINF:-1,A\nhttp://e.org/a.ts\n#EXTINF:-1,B\nhttp://e.org/b.ts\n',
    });
    const result = await build({ contentDir: dir, outDir: await tempDir() });
    expect(result.diagnostics.map((d) => [d.code, d.file, d.line, d.column, d.path, d.message])).toEqual([
      [
        'bad-file-name',
        path.join(dir, 'addon.yaml'),
        8,
        30,
        'playlists[0].idPrefix',
        '"a/b:" contains "/" or "\\", so it cannot become a file name on every host',
      ],
    ]);
  });

  it('refuses a playlist file listed twice, at the later entry, with the earlier as a note', async () => {
    const dir = await contentDir({
      'addon.yaml': addonYaml(`${TV_CATALOG}playlists:\n  - { file: c.m3u, idPrefix: "tv:" }\n  - { file: ./c.m3u }\n`),
      'c.m3u': '#EXTINF:-1,A\nhttp://e.org/a.ts\n',
    });
    const out = path.join(await tempDir(), 'dist');
    const result = await build({ contentDir: dir, outDir: out });
    const addon = path.join(dir, 'addon.yaml');
    expect(result.ok).toBe(false);
    expect(result.diagnostics).toMatchObject([
      {
        code: 'duplicate-playlist',
        severity: 'error',
        file: addon,
        line: 9,
        column: 13,
        path: 'playlists[1].file',
        message: 'the playlist file ./c.m3u is already listed, in playlists[0]',
        related: [{ file: addon, line: 8, column: 13, message: 'listed first here' }],
      },
    ]);
    await expect(readTree(out)).rejects.toThrow();
  });

  it('rewrites only what an edit changes, ends as a clean build, and keeps ids when entries are reordered', async () => {
    const entries = ['#EXTINF:-1 tvg-id="a",A\nhttp://e.org/a.ts\n', '#EXTINF:-1,Bé\nhttp://e.org/b.ts\n', '#EXTINF:-1,C\nhttp://e.org/c.ts\n'];
    const dir = await contentDir({ 'addon.yaml': addonYaml(TV_CATALOG), 'tv.m3u': `#EXTM3U\n${entries.join('')}` });
    const out = await tempDir();
    expect((await build({ contentDir: dir, outDir: out })).ok).toBe(true);
    const before = await readTree(out);

    await writeFile(path.join(dir, 'tv.m3u'), `#EXTM3U\n${entries.join('').replace('b.ts', 'b2.ts')}`);
    const edited = await build({ contentDir: dir, outDir: out });
    expect(edited.ok).toBe(true);
    const after = await readTree(out);
    const changed = [...after].filter(([file, bytes]) => !before.get(file)?.equals(bytes)).map(([file]) => file);
    expect(changed).toEqual(['stream/tv/iptv:be.json']);
    expect(edited.write!.written).toBe(1);
    const clean = await tempDir();
    await build({ contentDir: dir, outDir: clean });
    expect(after).toEqual(await readTree(clean));

    await writeFile(path.join(dir, 'tv.m3u'), `#EXTM3U\n${[...entries].reverse().join('').replace('b.ts', 'b2.ts')}`);
    const reordered = await build({ contentDir: dir, outDir: out });
    expect(reordered.ok).toBe(true);
    const metas = (tree: Map<string, Buffer>) => [...tree.keys()].filter((f) => f.startsWith('meta/tv/')).sort();
    expect(metas(await readTree(out))).toEqual(['meta/tv/iptv:a.json', 'meta/tv/iptv:be.json', 'meta/tv/iptv:c.json']);
    expect(metas(await readTree(out))).toEqual(metas(before));
  });
});

describe('channels of several playlists', () => {
  it('are one item with the streams of each, rebuilt when either playlist changes', async () => {
    const a = '#EXTINF:-1 tvg-id="news" group-title="News",News One\nhttp://a.example.org/news.m3u8\n#EXTINF:-1,Café\nhttp://a.example.org/cafe.ts\n';
    const b =
      '#EXTINF:-1 tvg-id="news" group-title="World",News One HD\nhttp://b.example.org/news.m3u8\n#EXTINF:-1,Café\nhttp://b.example.org/cafe.ts\n';
    const dir = await contentDir({ 'addon.yaml': addonYaml(TV_CATALOG), 'a.m3u': a, 'b.m3u': b });
    const out = await tempDir();
    const first = await build({ contentDir: dir, outDir: out, hosts: [] });
    expect(first.diagnostics).toEqual([]);
    const read = async (file: string) => JSON.parse(await readFile(path.join(out, file), 'utf8')) as Json;
    expect((await read('catalog/tv/channels.json')).metas.map((m: Json) => [m.id, m.name, m.genres])).toEqual([
      ['iptv:news', 'News One', ['News', 'World']],
      ['iptv:cafe', 'Café', undefined],
    ]);
    expect((await read('stream/tv/iptv:news.json')).streams.map((s: Json) => s.url)).toEqual([
      'http://a.example.org/news.m3u8',
      'http://b.example.org/news.m3u8',
    ]);
    expect((await read('stream/tv/iptv:cafe.json')).streams.map((s: Json) => s.url)).toEqual([
      'http://a.example.org/cafe.ts',
      'http://b.example.org/cafe.ts',
    ]);

    // An edit of the second playlist alone rewrites the merged channel's streams.
    await writeFile(path.join(dir, 'b.m3u'), b.replace('b.example.org/news', 'b2.example.org/news'));
    expect((await build({ contentDir: dir, outDir: out, hosts: [] })).ok).toBe(true);
    expect((await read('stream/tv/iptv:news.json')).streams.map((s: Json) => s.url)).toEqual([
      'http://a.example.org/news.m3u8',
      'http://b2.example.org/news.m3u8',
    ]);
    const clean = await tempDir();
    await build({ contentDir: dir, outDir: clean, hosts: [] });
    expect(await readTree(out)).toEqual(await readTree(clean));
  });
});

it('serve --watch picks up an edit of a playlist, and keeps the last good build through a broken one', async () => {
  const dir = await contentDir({ 'addon.yaml': addonYaml(TV_CATALOG), 'tv.m3u': '#EXTINF:-1,One\nhttp://e.org/1.ts\n' });
  const builds: boolean[] = [];
  const server = await startServer({ contentDir: dir, port: 0, watch: true, debounceMs: 30, onBuild: (b) => builds.push(b.ok) });
  const names = async () => {
    const response = await fetch(new URL('catalog/tv/channels.json', server.url));
    return ((await response.json()) as { metas: { name: string }[] }).metas.map((m) => m.name);
  };
  const waitFor = async (check: () => Promise<boolean> | boolean, what: string) => {
    for (const started = Date.now(); !(await check()); await new Promise((resolve) => setTimeout(resolve, 25))) {
      if (Date.now() - started > 10_000) throw new Error(`timed out waiting for ${what}`);
    }
  };
  try {
    expect(await names()).toEqual(['One']);
    await writeFile(path.join(dir, 'tv.m3u'), '#EXTINF:-1,One\nhttp://e.org/1.ts\n#EXTINF:-1,Two\nhttp://e.org/2.ts\n');
    await waitFor(async () => (await names()).length === 2, 'the edit');
    expect(await names()).toEqual(['One', 'Two']);
    await writeFile(path.join(dir, 'tv.m3u'), 'http://e.org/orphan.ts\n');
    await waitFor(() => builds.at(-1) === false, 'the failed build');
    expect(await names()).toEqual(['One', 'Two']);
  } finally {
    await server.close();
  }
});

/** A server on 127.0.0.1 that answers `routes` (path -> body) and 404 for anything else. */
async function serve(routes: Record<string, string>): Promise<{ url: string; close: () => Promise<void> }> {
  const server: Server = createServer((request, response) => {
    const body = routes[request.url ?? ''];
    response.writeHead(body === undefined ? 404 : 200, { 'Content-Type': 'audio/x-mpegurl' });
    response.end(body ?? 'not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

describe('playlists named by URL', () => {
  const addon = (url: string) => addonYaml(`${TV_CATALOG}playlists:\n  - { url: "${url}", catalog: channels }\n`);

  it('reads the playlist at build time, relative URLs against its own', async () => {
    const server = await serve({ '/lists/tv.m3u8': '#EXTM3U\n#EXTINF:-1 tvg-logo="logo.png" tvg-epg="1",Remote One\nlive/one.m3u8\n' });
    try {
      const dir = await contentDir({ 'addon.yaml': addon(`${server.url}/lists/tv.m3u8`) });
      const out = await tempDir();
      const result = await build({ contentDir: dir, outDir: out });
      // Its problems are at the URL and the playlist's line, also when a rebuild ends early.
      const warning = { code: 'playlist-attribute', file: `${server.url}/lists/tv.m3u8`, line: 2, column: 32 };
      expect(result.diagnostics).toMatchObject([warning]);
      const again = await build({ contentDir: dir, outDir: out });
      expect(again.reused).toBe(true);
      expect(again.diagnostics).toMatchObject([warning]);
      const tree = await readTree(out);
      expect(JSON.parse(tree.get('meta/tv/iptv:remote-one.json')!.toString()).meta.logo).toBe(`${server.url}/lists/logo.png`);
      expect(JSON.parse(tree.get('stream/tv/iptv:remote-one.json')!.toString()).streams[0].url).toBe(`${server.url}/lists/live/one.m3u8`);
    } finally {
      await server.close();
    }
  });

  it('fails at the line of addon.yaml on a 404 or a closed port, and writes nothing', async () => {
    const server = await serve({});
    const closed = await freePort();
    try {
      for (const [url, reason] of [
        [`${server.url}/missing.m3u`, /the server answered HTTP 404/],
        [`http://127.0.0.1:${closed}/tv.m3u`, /the connection was refused/],
      ] as const) {
        const dir = await contentDir({ 'addon.yaml': addon(url) });
        const out = path.join(await tempDir(), 'dist');
        const result = await build({ contentDir: dir, outDir: out });
        expect(result.ok).toBe(false);
        expect(result.diagnostics).toMatchObject([
          { code: 'playlist-unreadable', severity: 'error', file: path.join(dir, 'addon.yaml'), line: 8, column: 12, path: 'playlists[0].url' },
        ]);
        expect(result.diagnostics[0]!.message).toMatch(reason);
        await expect(readTree(out)).rejects.toThrow();
      }
    } finally {
      await server.close();
    }
  });
});

describe('playlists named by URL with credentials', () => {
  const PASSWORD = 'hunter2-very-secret';
  /** A server that answers a playlist only to username=u and the password, in the query or as Basic authorization. */
  async function guarded(body: Buffer | string) {
    const server: Server = createServer((request, response) => {
      const url = new URL(request.url ?? '/', 'http://127.0.0.1');
      const basic = `Basic ${Buffer.from(`u:${PASSWORD}`).toString('base64')}`;
      const ok =
        (url.searchParams.get('username') === 'u' && url.searchParams.get('password') === PASSWORD) || request.headers.authorization === basic;
      response.writeHead(ok ? 200 : 403, { 'Content-Type': 'audio/x-mpegurl' });
      response.end(ok ? body : 'forbidden');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    return { url: `http://127.0.0.1:${port}`, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
  }
  const addon = (url: string) => addonYaml(`${TV_CATALOG}playlists:\n  - { url: "${url}", catalog: channels }\n`);
  const env = { IPTV_PASS: PASSWORD };

  it('expands ${VAR} in the URL, and shows the URL without its query; an unset variable is unset-variable at its line', async () => {
    const server = await guarded('#EXTM3U\n#EXTINF:-1 tvg-epg="1",Remote\nhttp://e.org/r.ts\n');
    try {
      const dir = await contentDir({ 'addon.yaml': addon(`${server.url}/get.php?username=u&password=\${IPTV_PASS}`) });
      const out = await tempDir();
      const result = await build({ contentDir: dir, outDir: out, env });
      expect(result.diagnostics).toMatchObject([{ code: 'playlist-attribute', file: `${server.url}/get.php?…`, line: 2 }]);
      expect(result.ok).toBe(true);
      const tree = await readTree(out);
      expect(tree.has('meta/tv/iptv:remote.json')).toBe(true);
      // Nor in the output, nor in its state file (where the playlist is named as shown).
      const state = await readFile(stateFileOf(out), 'utf8');
      expect(state).toContain(`${server.url}/get.php?…`);
      expect(state).not.toContain(PASSWORD);
      for (const [, bytes] of tree) expect(bytes.toString('latin1')).not.toContain(PASSWORD);
      expect(JSON.stringify(result.diagnostics)).not.toContain(PASSWORD);

      const unset = await build({ contentDir: dir, outDir: path.join(await tempDir(), 'dist'), env: {} });
      expect(unset.ok).toBe(false);
      expect(unset.diagnostics).toMatchObject([{ code: 'unset-variable', file: path.join(dir, 'addon.yaml'), line: 8 }]);
    } finally {
      await server.close();
    }
  });

  it('sends user:password@ as Basic authorization, and never shows the password', async () => {
    const server = await guarded('#EXTINF:-1,Remote\nhttp://e.org/r.ts\n');
    try {
      const host = server.url.slice('http://'.length);
      const dir = await contentDir({ 'addon.yaml': addon(`http://u:\${IPTV_PASS}@${host}/tv.m3u`) });
      const result = await build({ contentDir: dir, outDir: await tempDir(), env });
      expect(result.diagnostics).toEqual([]);

      const wrong = await contentDir({ 'addon.yaml': addon(`${server.url}/get.php?username=u&password=\${IPTV_PASS}x`) });
      const failed = await build({ contentDir: wrong, outDir: path.join(await tempDir(), 'dist'), env });
      expect(failed.diagnostics).toMatchObject([{ code: 'playlist-unreadable', line: 8 }]);
      expect(failed.diagnostics[0]!.message).toContain(`${server.url}/get.php?… cannot be read: the server answered HTTP 403`);
      const wrongUser = await contentDir({ 'addon.yaml': addon(`http://v:\${IPTV_PASS}@${host}/tv.m3u`) });
      const refused = await build({ contentDir: wrongUser, outDir: path.join(await tempDir(), 'dist'), env });
      expect(refused.diagnostics).toMatchObject([{ code: 'playlist-unreadable' }]);
      for (const result of [failed, refused]) expect(JSON.stringify(result.diagnostics)).not.toContain(PASSWORD);
    } finally {
      await server.close();
    }
  });

  it('names apart two playlists whose URLs are shown alike', async () => {
    const server = await guarded('#EXTINF:-1 tvg-epg="1",Remote\nhttp://e.org/r.ts\n');
    try {
      const url = `${server.url}/get.php?username=u&password=\${IPTV_PASS}`;
      const dir = await contentDir({
        'addon.yaml': addonYaml(`${TV_CATALOG}playlists:\n  - { url: "${url}" }\n  - { url: "${url}&type=m3u", idPrefix: "b:" }\n`),
      });
      const result = await build({ contentDir: dir, outDir: await tempDir(), env });
      expect(result.ok).toBe(true);
      expect(result.diagnostics.map((d) => d.file)).toEqual([`${server.url}/get.php?…`, `${server.url}/get.php?… (playlists[1])`]);
    } finally {
      await server.close();
    }
  });

  it('refuses a playlist that is not UTF-8, rather than read its bytes as U+FFFD', async () => {
    const server = await guarded(Buffer.from('#EXTINF:-1,Télé\nhttp://e.org/t.ts\n', 'latin1'));
    try {
      const dir = await contentDir({ 'addon.yaml': addon(`${server.url}/tv.m3u?username=u&password=\${IPTV_PASS}`) });
      const result = await build({ contentDir: dir, outDir: path.join(await tempDir(), 'dist'), env });
      expect(result.ok).toBe(false);
      expect(result.diagnostics).toMatchObject([{ code: 'playlist-unreadable', line: 8 }]);
      expect(result.diagnostics[0]!.message).toMatch(/is not UTF-8 text/);
    } finally {
      await server.close();
    }
  });
});

// ---------------------------------------------------------------------------------------------
// 140 channels in the real client core

interface Channel {
  id: string;
  name: string;
  group: string;
  streams: { url: string; request?: Record<string, string> }[];
}

const GROUPS = ['News & Weather', 'Sport', 'Kids, Family', 'Cinéma "Club"'];

/**
 * The channels, and the playlist that holds them: four groups; names with accents, `&`, commas
 * and quotes; a third without tvg-id (ids from their names, slugs written here by hand); every
 * seventh with a user agent, every fourteenth a referrer too; HLS and .ts URLs; every tenth with
 * a second entry at the end of the playlist, which merges into it.
 */
function generated(): { channels: Channel[]; playlist: string } {
  const names: ((i: number) => [name: string, slug: string])[] = [
    (i) => [`Chaîne ${i}`, `chaine-${i}`],
    (i) => [`Tom & Jerry ${i}`, `tom-jerry-${i}`],
    (i) => [`News, Weather ${i}`, `news-weather-${i}`],
    (i) => [`The "Best" ${i}`, `the-best-${i}`],
    (i) => [`Ça Va ${i}`, `ca-va-${i}`],
  ];
  const channels: Channel[] = [];
  const lines = ['#EXTM3U'];
  const extra: string[] = [];
  for (let i = 0; i < 140; i++) {
    const [name, slug] = names[i % 5]!(i);
    const tvgId = i % 3 === 0 ? undefined : `ch${i}.example`;
    const group = GROUPS[i % 4]!;
    const url = i % 2 === 0 ? `http://127.0.0.1:9/live/${i}/index.m3u8` : `https://example.com/ts/${i}.ts`;
    const request =
      i % 7 === 0 ? { 'User-Agent': `Agent/${i} (compatible)`, ...(i % 14 === 0 && { Referer: `https://example.com/${i}/` }) } : undefined;
    const escaped = name.replace(/"/g, '\\"');
    const attributes = `${tvgId ? `tvg-id="${tvgId}" ` : ''}tvg-name="${escaped}" tvg-logo="https://example.com/logo/${i}.png" group-title="${group.replace(/"/g, '\\"')}"`;
    lines.push(`#EXTINF:-1 ${attributes},${name}`);
    if (request) {
      lines.push(`#EXTVLCOPT:http-user-agent=${request['User-Agent']}`);
      if (request.Referer) lines.push(`#EXTVLCOPT:http-referrer=${request.Referer}`);
    }
    lines.push(url);
    const streams: Channel['streams'] = [{ url, ...(request && { request }) }];
    if (i % 10 === 0) {
      const backup = `https://example.com/backup/${i}.m3u8`;
      extra.push(`#EXTINF:-1 ${tvgId ? `tvg-id="${tvgId}" ` : ''}group-title="${group.replace(/"/g, '\\"')}",${name}`, backup);
      streams.push({ url: backup });
    }
    channels.push({ id: `iptv:${tvgId ?? slug}`, name, group, streams });
  }
  return { channels, playlist: `${[...lines, ...extra].join('\r\n')}\r\n` };
}

describe('140 channels in the real client core, on nginx set up like GitHub Pages', () => {
  it('lists every channel in the catalog and in its genre, and gives each its streams', { timeout: 240_000 }, async () => {
    const { channels, playlist } = generated();
    const dir = await contentDir({
      'addon.yaml': addonYaml(`${TV_CATALOG}playlists:\n  - { file: tv/channels.m3u8, catalog: channels }\n`),
      'tv/channels.m3u8': playlist,
    });
    const port = await freePort();
    const baseUrl = `http://127.0.0.1:${port}/repo/`;
    const out = path.join(await tempDir(), 'dist');
    const result = await build({ contentDir: dir, outDir: out, baseUrl, hosts: ['github-pages'] });
    expect(result.diagnostics).toEqual([]);
    expect(result.ok).toBe(true);
    const nginx = await startNginx(out, { port, prefix: '/repo/' });
    const core = await startCore({ origin: BROWSER_ORIGIN, quietMs: 15 });
    try {
      const manifestUrl = `${nginx.url}manifest.json`;
      const walk = await walkAddon(core, manifestUrl);
      expect(walk.failures).toEqual([]);
      expect(walk.counts.metas).toBe(140);

      const listing = async (extra: [string, string][]) =>
        core.discover({ base: manifestUrl, path: { resource: 'catalog', type: 'tv', id: 'channels', extra } });
      const all = await listing([]);
      expect(all.error).toBeNull();
      expect(all.endError).toBeNull();
      expect(all.ids).toEqual(channels.map((c) => c.id));
      for (const group of GROUPS) {
        const genre = await listing([['genre', group]]);
        expect(genre.endError, group).toBeNull();
        expect(genre.ids, group).toEqual(channels.filter((c) => c.group === group).map((c) => c.id));
      }

      for (const channel of channels) {
        const details = await core.metaDetails('tv', channel.id, channel.id);
        expect(details.meta?.content.type, channel.id).toBe('Ready');
        expect((details.meta!.content as { content: Json }).content.name, channel.id).toBe(channel.name);
        const loadable = details.streams[0]!.content as { type: string; content: Json[] };
        expect(loadable.type, channel.id).toBe('Ready');
        const streams = loadable.content.map((s: Json) => ({
          url: s.url,
          ...(s.behaviorHints?.proxyHeaders && { request: s.behaviorHints.proxyHeaders.request }),
        }));
        expect(streams, channel.id).toEqual(channel.streams);
        for (const s of loadable.content) expect(s.behaviorHints?.notWebReady ?? false, channel.id).toBe(s.behaviorHints?.proxyHeaders !== undefined);
      }
    } finally {
      await core.stop();
      await nginx.close();
    }
  });
});
