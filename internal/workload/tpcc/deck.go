package tpcc

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"
)

// The five transactions' names as results report them.
const (
	NewOrder    = "new_order"
	Payment     = "payment"
	OrderStatus = "order_status"
	Delivery    = "delivery"
	StockLevel  = "stock_level"
)

// TxnNames are the transaction types in the order results list them.
var TxnNames = []string{NewOrder, Payment, OrderStatus, Delivery, StockLevel}

// Mix is how many cards of each transaction type a deck holds, in TxnNames order.
type Mix [5]int

var (
	// MixDefault is 45/43/4/4/4 in a deck of 100, HammerDB's, go-tpc's and
	// CockroachDB's mix: Payment and the three small transactions at the minimum
	// percentages of clause 5.2.3, New-Order the rest.
	MixDefault = Mix{45, 43, 4, 4, 4}
	// MixSpec23 is the 23-card deck that clause 5.2.4.2 gives as an example:
	// 10/10/1/1/1, i.e. 43.5% New-Order and Payment and 4.35% of each other type.
	MixSpec23 = Mix{10, 10, 1, 1, 1}
)

// ParseMix reads a --mix value: "default" (45/43/4/4/4) or "spec23" (10/10/1/1/1).
func ParseMix(s string) (Mix, error) {
	switch s {
	case "", "default", "45/43/4/4/4":
		return MixDefault, nil
	case "spec23", "10/10/1/1/1":
		return MixSpec23, nil
	}
	return Mix{}, fmt.Errorf("mix %q: give default (45/43/4/4/4 of 100 cards) or spec23 (10/10/1/1/1 of 23 cards)", s)
}

// Deck deals transaction types as clause 5.2.4.2 says: every pass through a shuffled
// deck runs each type exactly as often as the mix says.
type Deck struct {
	cards []string
	next  int
	r     *rand.Rand
}

// NewDeck builds a deck of mix, shuffled by r.
func NewDeck(mix Mix, r *rand.Rand) *Deck {
	d := &Deck{r: r}
	for i, n := range mix {
		for range n {
			d.cards = append(d.cards, TxnNames[i])
		}
	}
	d.next = len(d.cards)
	return d
}

// Size is the number of cards in one deck.
func (d *Deck) Size() int { return len(d.cards) }

// Deal returns the next transaction type, reshuffling after the last card.
func (d *Deck) Deal() string {
	if d.next == len(d.cards) {
		d.r.Shuffle(len(d.cards), func(i, j int) { d.cards[i], d.cards[j] = d.cards[j], d.cards[i] })
		d.next = 0
	}
	c := d.cards[d.next]
	d.next++
	return c
}

// Pacing of clause 5.2.5.7: the minimum keying time and the mean think time of each
// transaction type.
var pacing = map[string]struct{ keying, think time.Duration }{
	NewOrder:    {18 * time.Second, 12 * time.Second},
	Payment:     {3 * time.Second, 12 * time.Second},
	OrderStatus: {2 * time.Second, 10 * time.Second},
	Delivery:    {2 * time.Second, 5 * time.Second},
	StockLevel:  {2 * time.Second, 5 * time.Second},
}

// thinkTime draws a think time as clause 5.2.5.4 says: -ln(r) times the mean, r
// uniform in (0, 1], at most ten times the mean.
func thinkTime(r *rand.Rand, mean time.Duration) time.Duration {
	x := -math.Log(1 - r.Float64()) // 1 - [0,1) is (0,1]
	return time.Duration(min(x, 10) * float64(mean))
}
