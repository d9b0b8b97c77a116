// Hand values of every Seka profile, written from docs/rules.md (as sample_bots/js_bot/hands.js
// is), independently of the arena's Python lookup tables, which tests/sdk/test_go_hands.py
// compares it with.
//
// A value is a number: stronger hands are greater, equal hands tie. A total is itself (24, 22,
// 31, ...); in `georgian` and `seka21` a seka (three of a rank) is 1000 + the rank's index, above
// every total. A wild card takes whatever role gives the highest value.

package main

import "strings"

const (
	ranks = "6789TJQKA"
	suits = "cdhs"
	seka  = 1000
)

// Points by rank index: 6 7 8 9 T J Q K A.
var points = [...]int{6, 7, 8, 9, 10, 10, 10, 10, 11}

func rankOf(card string) int   { return strings.IndexByte(ranks, card[0]) }
func pointsOf(card string) int { return points[rankOf(card)] }

// bestSuit is the greatest sum of the cards of one suit.
func bestSuit(cards []string) int {
	bySuit := map[byte]int{}
	best := 0
	for _, card := range cards {
		bySuit[card[1]] += pointsOf(card)
		best = max(best, bySuit[card[1]])
	}
	return best
}

func max(a, b int) int {
	if a > b {
		return a
	}
	return b
}

func count(cards []string, rank byte) int {
	n := 0
	for _, card := range cards {
		if card[0] == rank {
			n++
		}
	}
	return n
}

func allSameRank(cards []string) bool {
	return len(cards) == 3 && count(cards, cards[0][0]) == 3
}

// georgian: no wild card; a seka above every total, two aces 22, else the best suit.
func georgian(cards []string) int {
	if allSameRank(cards) {
		return seka + rankOf(cards[0])
	}
	if count(cards, 'A') == 2 {
		return 22
	}
	return bestSuit(cards)
}

// pointsValue: classic and seka36 without wild cards: the best suit, two aces 22, three of a kind
// by points (seka36: 6-6-6 is 34, the top hand).
func pointsValue(cards []string, sixesTop bool) int {
	best := bestSuit(cards)
	if count(cards, 'A') >= 2 {
		best = max(best, 22)
	}
	if allSameRank(cards) {
		if sixesTop && cards[0][0] == '6' {
			best = max(best, 34)
		} else {
			best = max(best, 3*pointsOf(cards[0]))
		}
	}
	return best
}

// natural lists every card a wild card may stand for (it may copy one already held) among `ranksOf`.
func natural(ranksOf string) []string {
	cards := []string{}
	for _, rank := range ranksOf {
		for _, suit := range suits {
			cards = append(cards, string(rank)+string(suit))
		}
	}
	return cards
}

func indexOfAny(cards []string, wild []string) int {
	for index, card := range cards {
		for _, w := range wild {
			if card == w {
				return index
			}
		}
	}
	return -1
}

// withWilds is the best value of `cards` over every card each wild card may stand for.
func withWilds(cards []string, wild []string, stand []string, value func([]string) int) int {
	index := indexOfAny(cards, wild)
	if index < 0 {
		return value(cards)
	}
	rest := []string{}
	for _, w := range wild {
		if w != cards[index] {
			rest = append(rest, w)
		}
	}
	best := -1
	for _, card := range stand {
		replaced := append([]string{}, cards...)
		replaced[index] = card
		best = max(best, withWilds(replaced, rest, stand, value))
	}
	return best
}

// svara32: the 7c is worth 11 and joins a suit (as an 11 of that suit) or a rank group (it adds 11
// to a pair: 7c 8c 8d = 27); any two sevens are 23 (the 7c counting as a seven); 7-7-7 is 34, the
// top; other triples by points; mixed-suit pairs do not add; two aces 22.
func svara32(cards []string) int {
	naturals := []string{}
	for _, card := range cards {
		if card != "7c" {
			naturals = append(naturals, card)
		}
	}
	if count(cards, '7') == 3 {
		return 34
	}
	best := 0
	if count(cards, '7') == 2 {
		best = 23
	}
	if len(naturals) == len(cards) {
		best = max(best, bestSuit(cards))
		if count(cards, 'A') >= 2 {
			best = max(best, 22)
		}
		if allSameRank(cards) {
			best = max(best, 3*pointsOf(cards[0]))
		}
		return best
	}
	for _, suit := range suits { // the wild as an 11 of any suit
		best = max(best, bestSuit(append(append([]string{}, naturals...), "A"+string(suit))))
	}
	if count(naturals, 'A') == 2 {
		best = max(best, 22)
	}
	if len(naturals) == 2 && naturals[0][0] == naturals[1][0] { // the wild joining a pair
		best = max(best, pointsOf(naturals[0])*2+11)
	}
	return best
}

// seka21Natural: the best suit; any two of a rank add up; three of a rank is a seka above every
// total (T < J < Q < K < A).
func seka21Natural(cards []string) int {
	if allSameRank(cards) {
		return seka + rankOf(cards[0])
	}
	best := bestSuit(cards)
	for i := range cards {
		for j := i + 1; j < len(cards); j++ {
			if cards[i][0] == cards[j][0] {
				best = max(best, pointsOf(cards[i])+pointsOf(cards[j]))
			}
		}
	}
	return best
}

// classicWild: the wild cards of a classic table (its `wild` option; 7c by default).
func classicWild(options map[string]string) []string {
	switch options["wild"] {
	case "black7":
		return []string{"7c", "7s"}
	case "none":
		return nil
	default:
		return []string{"7c"}
	}
}

// HandValue is the value of `cards` at a table of `profile` with `options` (HelloRequest.profile
// and .options).
func HandValue(cards []string, profile string, options map[string]string) int {
	switch profile {
	case "classic":
		return withWilds(cards, classicWild(options), natural(ranks), func(hand []string) int { return pointsValue(hand, false) })
	case "seka36":
		return withWilds(cards, []string{"7c"}, natural(ranks), func(hand []string) int { return pointsValue(hand, true) })
	case "svara32":
		return svara32(cards)
	case "seka21":
		return withWilds(cards, []string{"9c"}, natural("TJQKA"), seka21Natural)
	default:
		return georgian(cards)
	}
}
