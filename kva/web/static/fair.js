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

// The HMAC message: "kva-fair/1" || client seed 0 || … || client seed s−1 || u32be hand ||
// u32be redeal || u32be counter (54 bytes at two seats, the Georgian game; Kozel has 2 to 4).
// The last 4 bytes are rewritten for each block.
function message(clientSeedsHex, hand, redeal) {
  const seats = Array.isArray(clientSeedsHex) ? clientSeedsHex.length : 0;
  if (seats < 2 || seats > 4) {
    throw new Error("one client seed per seat is needed (2 to 4 seats)");
  }
  const at = 10 + 16 * seats; // where the hand number starts
  const msg = new Uint8Array(at + 12);
  for (let i = 0; i < 10; i++) msg[i] = SCHEME.charCodeAt(i);
  clientSeedsHex.forEach((seed, p) => msg.set(hexToBytes(seed, 16, `client seed ${p}`), 10 + 16 * p));
  const view = new DataView(msg.buffer);
  view.setUint32(at, hand >>> 0, false);
  view.setUint32(at + 4, redeal >>> 0, false);
  return { msg, view, counterAt: at + 8 };
}

async function shuffledOrder(key, clientSeedsHex, hand, redeal) {
  const { msg, view, counterAt } = message(clientSeedsHex, hand, redeal);
  let counter = 0;
  let words = null;
  let used = 8;
  const next = async () => {
    if (used === 8) {
      view.setUint32(counterAt, counter++, false);
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

// Positions 0-6 go to seat 0, 7-13 to seat 1, and so on; the rest is the bazaar.
function dealOf(order, seats = 2) {
  const names = order.map((t) => TILE_NAMES[t]);
  const hands = Array.from({ length: seats }, (_, p) => names.slice(7 * p, 7 * p + 7));
  return { hands, bazaar: names.slice(7 * seats) };
}

/**
 * The deal kva-fair/1 gives hand `hand` (0-based), redeal `redeal`, one hand per client seed:
 * {hands: [[7 names], …], bazaar: [28 − 7s names in draw order]}, names like "3-5".
 */
export async function deriveDeal(serverSeedHex, clientSeedsHex, hand, redeal = 0) {
  const key = await hmacKey(serverSeedHex);
  return dealOf(await shuffledOrder(key, clientSeedsHex, hand, redeal), clientSeedsHex.length);
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
  for (let p = 0; p < derived.hands.length; p++) {
    const got = (dealt.hands?.[p] || []).map(canonical);
    const want = new Set(derived.hands[p]);
    if (got.length !== 7 || new Set(got).size !== 7 || got.some((n) => !want.has(n))) {
      return `seat ${p}'s hand is not the derived one`;
    }
  }
  const bazaar = (dealt.bazaar || []).map(canonical);
  const size = derived.bazaar.length;
  if (bazaar.length !== size) return `the bazaar is not ${size} tiles`;
  for (let i = 0; i < size; i++) {
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
  const kozel = record.format === KOZEL_FORMAT;
  const seats = kozel ? seatsOf(record) : 2;
  try {
    hexToBytes(fair.commitment, 32, "meta.fair.commitment");
    if (!Array.isArray(seeds) || seeds.length !== seats) {
      throw new Error(
        `meta.fair.client_seeds: must list the ${SEAT_WORDS[seats] || seats} seats' client seeds`);
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
  if (kozel) return verifyKozelDeals(key, seeds, hands);
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

const KOZEL_FORMAT = "kozel/1";
const SEAT_WORDS = { 2: "two", 3: "three", 4: "four" };

/** The seats of a kozel/1 record: every seat of its sides. */
function seatsOf(record) {
  const sides = Array.isArray(record.sides) ? record.sides : [];
  return sides.reduce((n, side) => n + (Array.isArray(side) ? side.length : 0), 0);
}

/**
 * A kozel/1 record's deals (docs/fairness.md, "Kozel"): hand k's deals are its voided ones, in
 * order, then the one played, and the r-th of them is redeal r of hand k. Whether a voided deal
 * really breaks the redeal rule is the rules' check (kva record verify), not the deal's.
 */
async function verifyKozelDeals(key, seeds, hands) {
  for (let k = 0; k < hands.length; k++) {
    const voided = Array.isArray(hands[k]?.voided) ? hands[k].voided : [];
    const deals = [...voided, hands[k]?.deal || {}];
    for (let r = 0; r < deals.length; r++) {
      const derived = dealOf(await shuffledOrder(key, seeds, k, r), seeds.length);
      const problem = difference(deals[r] || {}, derived);
      if (problem) {
        const where = r < voided.length ? `hands[${k}].voided[${r}]` : `hands[${k}].deal`;
        return { ok: false, hands: k,
          error: `${where}: not the deal ${SCHEME} derives (redeal ${r}): ${problem}` };
      }
    }
  }
  return { ok: true, hands: hands.length, error: null };
}
