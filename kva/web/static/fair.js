// kva-fair/1, the provably fair deal, in the browser (and under Node 20): the same derivation
// as kva/rules/fair.py, byte for byte (docs/fairness.md). WebCrypto only: SHA-256 for the
// commitment, HMAC-SHA256 for the word stream. No DOM here; the pages show the result.

export const SCHEME = "kva-fair/1";
const TILE_COUNT = 28;

// kva's tile ids: 0 = "0-0", 1 = "0-1", ..., 6 = "0-6", 7 = "1-1", ..., 27 = "6-6".
export const TILE_NAMES = [];
for (let a = 0; a <= 6; a++) for (let b = a; b <= 6; b++) TILE_NAMES.push(`${a}-${b}`);

const subtle = () => globalThis.crypto.subtle;
const HEX = /^[0-9a-f]*$/;

export function hexToBytes(hex, size, what) {
  if (typeof hex !== "string" || hex.length !== 2 * size || !HEX.test(hex)) {
    throw new Error(`${what} must be ${2 * size} lowercase hex digits`);
  }
  const out = new Uint8Array(size);
  for (let i = 0; i < size; i++) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

function bytesToHex(bytes) {
  return Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** A fresh client seed: 16 random bytes from crypto.getRandomValues, as 32 hex digits. */
export function newClientSeed() {
  return bytesToHex(globalThis.crypto.getRandomValues(new Uint8Array(16)));
}

/** The commitment to a server seed: SHA-256 of its 32 bytes, lowercase hex. */
export async function commitmentOf(serverSeedHex) {
  const seed = hexToBytes(serverSeedHex, 32, "server seed");
  return bytesToHex(await subtle().digest("SHA-256", seed));
}

async function hmacKey(serverSeedHex) {
  const seed = hexToBytes(serverSeedHex, 32, "server seed");
  return subtle().importKey("raw", seed, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
}

// The 54-byte HMAC message: "kva-fair/1" || client seed 0 || client seed 1 || u32be hand ||
// u32be redeal || u32be counter. The last 4 bytes are rewritten for each block.
function message(clientSeedsHex, hand, redeal) {
  if (!Array.isArray(clientSeedsHex) || clientSeedsHex.length !== 2) {
    throw new Error("two client seeds are needed (seat 0, seat 1)");
  }
  const msg = new Uint8Array(54);
  for (let i = 0; i < 10; i++) msg[i] = SCHEME.charCodeAt(i);
  msg.set(hexToBytes(clientSeedsHex[0], 16, "client seed 0"), 10);
  msg.set(hexToBytes(clientSeedsHex[1], 16, "client seed 1"), 26);
  const view = new DataView(msg.buffer);
  view.setUint32(42, hand >>> 0, false);
  view.setUint32(46, redeal >>> 0, false);
  return { msg, view };
}

async function shuffledOrder(key, clientSeedsHex, hand, redeal) {
  const { msg, view } = message(clientSeedsHex, hand, redeal);
  let counter = 0;
  let words = null;
  let used = 8;
  const next = async () => {
    if (used === 8) {
      view.setUint32(50, counter++, false);
      words = new DataView(await subtle().sign("HMAC", key, msg));
      used = 0;
    }
    return words.getUint32(4 * used++, false);
  };
  const tiles = Array.from({ length: TILE_COUNT }, (_, i) => i);
  for (let i = TILE_COUNT - 1; i >= 1; i--) {
    const span = i + 1;
    const limit = 4294967296 - (4294967296 % span); // first rejected word
    let w = await next();
    while (w >= limit) w = await next();
    const j = w % span;
    [tiles[i], tiles[j]] = [tiles[j], tiles[i]];
  }
  return tiles;
}

function dealOf(order) {
  const names = order.map((t) => TILE_NAMES[t]);
  return { hands: [names.slice(0, 7), names.slice(7, 14)], bazaar: names.slice(14) };
}

/**
 * The deal kva-fair/1 gives hand `hand` (0-based), redeal `redeal`:
 * {hands: [[7 names], [7 names]], bazaar: [14 names in draw order]}, names like "3-5".
 */
export async function deriveDeal(serverSeedHex, clientSeedsHex, hand, redeal = 0) {
  const key = await hmacKey(serverSeedHex);
  return dealOf(await shuffledOrder(key, clientSeedsHex, hand, redeal));
}

const DOUBLES = new Set(["0-0", "1-1", "2-2", "3-3", "4-4", "5-5", "6-6"]);

async function firstHandDeal(key, clientSeedsHex) {
  for (let redeal = 0; ; redeal++) {
    const deal = dealOf(await shuffledOrder(key, clientSeedsHex, 0, redeal));
    if (deal.hands[0].concat(deal.hands[1]).some((n) => DOUBLES.has(n))) return deal;
  }
}

// "5-3" and "3-5" are the same tile; a record's writer puts the low half first, a reader
// accepts either.
function canonical(name) {
  if (typeof name !== "string" || !/^[0-6]-[0-6]$/.test(name)) return null;
  const a = Number(name[0]);
  const b = Number(name[2]);
  return a <= b ? `${a}-${b}` : `${b}-${a}`;
}

function difference(dealt, derived) {
  for (const p of [0, 1]) {
    const got = (dealt.hands?.[p] || []).map(canonical);
    const want = new Set(derived.hands[p]);
    if (got.length !== 7 || new Set(got).size !== 7 || got.some((n) => !want.has(n))) {
      return `seat ${p}'s hand is not the derived one`;
    }
  }
  const bazaar = (dealt.bazaar || []).map(canonical);
  if (bazaar.length !== 14) return "the bazaar is not 14 tiles";
  for (let i = 0; i < 14; i++) {
    if (bazaar[i] !== derived.bazaar[i]) {
      return `bazaar[${i}] is ${bazaar[i]} where it derives ${derived.bazaar[i]}`;
    }
  }
  return null;
}

/**
 * Check a finished record's deals against its meta.fair.
 * Resolves to {ok: true, hands: N} when the seed matches the commitment and all N deals are
 * the derived ones; else {ok: false, hands: deals checked before the problem, error: text}.
 * A record without meta.fair gives {ok: false, hands: 0, error: "...no meta.fair..."}.
 */
export async function verifyRecord(record) {
  const fail = (hands, error) => ({ ok: false, hands, error });
  const fair = record?.meta?.fair;
  if (!fair || typeof fair !== "object") return fail(0, "the record has no meta.fair");
  if (fair.scheme !== SCHEME) return fail(0, `meta.fair.scheme: must be '${SCHEME}'`);
  const seeds = fair.client_seeds;
  try {
    hexToBytes(fair.commitment, 32, "meta.fair.commitment");
    if (!Array.isArray(seeds) || seeds.length !== 2) {
      throw new Error("meta.fair.client_seeds: must list the two seats' client seeds");
    }
    seeds.forEach((s, p) => hexToBytes(s, 16, `meta.fair.client_seeds[${p}]`));
  } catch (err) {
    return fail(0, err.message);
  }
  if (typeof fair.server_seed !== "string") {
    return fail(0, "meta.fair.server_seed: not revealed (the match is not over)");
  }
  let key;
  try {
    if ((await commitmentOf(fair.server_seed)) !== fair.commitment) {
      return fail(0, "meta.fair.server_seed: does not match the commitment");
    }
    key = await hmacKey(fair.server_seed);
  } catch (err) {
    return fail(0, `meta.fair.server_seed: ${err.message}`);
  }
  const hands = Array.isArray(record.hands) ? record.hands : [];
  if (!hands.length) return fail(0, "hands: the record has no hands");
  for (let k = 0; k < hands.length; k++) {
    const derived =
      k === 0
        ? await firstHandDeal(key, seeds)
        : dealOf(await shuffledOrder(key, seeds, k, 0));
    const problem = difference(hands[k]?.deal || {}, derived);
    if (problem) return fail(k, `hands[${k}].deal: not the deal ${SCHEME} derives: ${problem}`);
  }
  return { ok: true, hands: hands.length, error: null };
}
