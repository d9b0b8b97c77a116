'use strict';
// Hand values of every Seka profile, written from docs/rules.md (and PROFILES.md of the rules
// sources) independently of the arena's Python lookup tables, which the tests compare it with.
//
// A value is a number: stronger hands are greater, equal hands tie. A total is itself (24, 22,
// 31, ...); in `georgian` and `seka21` a seka (three of a rank) is 1000 + the rank's index, above
// every total. A wild card takes whatever role gives the highest value.

const RANKS = '6789TJQKA';
const SUITS = 'cdhs';
const POINTS = [6, 7, 8, 9, 10, 10, 10, 10, 11]; // by rank index: 6 7 8 9 T J Q K A
const SEKA = 1000;

function rankOf(card) { return RANKS.indexOf(card[0]); }
function pointsOf(card) { return POINTS[rankOf(card)]; }

// The greatest sum of the cards of one suit.
function bestSuit(cards) {
  const bySuit = {};
  for (const card of cards) bySuit[card[1]] = (bySuit[card[1]] || 0) + pointsOf(card);
  return Math.max(...Object.values(bySuit));
}

function count(cards, rank) { return cards.filter((card) => card[0] === rank).length; }
function allSameRank(cards) { return cards.length === 3 && cards.every((card) => card[0] === cards[0][0]); }

// georgian: no wild card; a seka above every total, two aces 22, else the best suit.
function georgian(cards) {
  if (allSameRank(cards)) return SEKA + rankOf(cards[0]);
  if (count(cards, 'A') === 2) return 22;
  return bestSuit(cards);
}

// classic and seka36 without wild cards: the best suit, two aces 22, three of a kind by points
// (seka36: 6-6-6 is 34, the top hand).
function pointsValue(cards, sixesTop) {
  let best = bestSuit(cards);
  if (count(cards, 'A') >= 2) best = Math.max(best, 22);
  if (allSameRank(cards)) best = Math.max(best, sixesTop && cards[0][0] === '6' ? 34 : 3 * pointsOf(cards[0]));
  return best;
}

// Every natural card: what a wild card may stand for (it may copy one already held).
const NATURAL = [];
for (const rank of RANKS) for (const suit of SUITS) NATURAL.push(rank + suit);

// The best value over every card the wild cards may stand for.
function withWilds(cards, wild, value) {
  const index = cards.findIndex((card) => wild.includes(card));
  if (index < 0) return value(cards);
  let best = -Infinity;
  for (const card of NATURAL) {
    const replaced = cards.slice();
    replaced[index] = card;
    best = Math.max(best, withWilds(replaced, wild.filter((w) => w !== cards[index]), value));
  }
  return best;
}

// svara32: the 7c is worth 11 and joins a suit (as an 11 of that suit) or a rank group (it adds 11
// to a pair: 7c 8c 8d = 27); any two sevens are 23 (the 7c counting as a seven); 7-7-7 is 34, the
// top; other triples by points; mixed-suit pairs do not add; two aces 22.
function svara32(cards) {
  const wilds = cards.filter((card) => card === '7c').length;
  const natural = cards.filter((card) => card !== '7c');
  if (count(cards, '7') === 3) return 34;
  let best = count(cards, '7') === 2 ? 23 : 0;
  if (wilds === 0) {
    best = Math.max(best, bestSuit(cards));
    if (count(cards, 'A') >= 2) best = Math.max(best, 22);
    if (allSameRank(cards)) best = Math.max(best, 3 * pointsOf(cards[0]));
    return best;
  }
  // The wild as an 11 of any suit.
  for (const suit of SUITS) best = Math.max(best, bestSuit([...natural, `A${suit}`]));
  if (count(natural, 'A') === 2) best = Math.max(best, 22);
  // The wild joining a pair: the pair's points and 11.
  if (natural.length === 2 && natural[0][0] === natural[1][0]) {
    best = Math.max(best, pointsOf(natural[0]) * 2 + 11);
  }
  return best;
}

// seka21: 10 J Q K A of each suit and the 9c, which stands for any natural card. The best suit;
// any two of a rank add up; three of a rank is a seka above every total (T < J < Q < K < A).
function seka21Natural(cards) {
  if (allSameRank(cards)) return SEKA + rankOf(cards[0]);
  let best = bestSuit(cards);
  for (let i = 0; i < cards.length; i += 1) {
    for (let j = i + 1; j < cards.length; j += 1) {
      if (cards[i][0] === cards[j][0]) best = Math.max(best, pointsOf(cards[i]) + pointsOf(cards[j]));
    }
  }
  return best;
}

const SEKA21_NATURAL = NATURAL.filter((card) => 'TJQKA'.includes(card[0]));

function seka21(cards) {
  const index = cards.indexOf('9c');
  if (index < 0) return seka21Natural(cards);
  let best = -Infinity;
  for (const card of SEKA21_NATURAL) {
    const replaced = cards.slice();
    replaced[index] = card;
    best = Math.max(best, seka21Natural(replaced));
  }
  return best;
}

// The wild cards of a table: TableSettings.wild, or the profile's default.
function wildCards(profile, options) {
  if (profile === 'classic') {
    const wild = (options && options.wild) || '7c';
    return { '7c': ['7c'], black7: ['7c', '7s'], none: [] }[wild] || ['7c'];
  }
  return { seka36: ['7c'], svara32: ['7c'], seka21: ['9c'] }[profile] || [];
}

// The value of `cards` at a table of `profile` with `options` (HelloRequest.profile, .options).
function handValue(cards, profile = 'georgian', options = {}) {
  switch (profile) {
    case 'classic': return withWilds(cards, wildCards(profile, options), (hand) => pointsValue(hand, false));
    case 'seka36': return withWilds(cards, ['7c'], (hand) => pointsValue(hand, true));
    case 'svara32': return svara32(cards);
    case 'seka21': return seka21(cards);
    default: return georgian(cards);
  }
}

module.exports = { handValue, wildCards, SEKA };
