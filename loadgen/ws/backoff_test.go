package ws

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

func TestPolicyDelays(t *testing.T) {
	ms := time.Millisecond
	for _, tt := range []struct {
		name string
		p    Policy
		want []time.Duration // Delay(0), Delay(1), … from a fresh rng seeded 1, 2
	}{
		{"immediate", Policy{Kind: Immediate}, []time.Duration{0, 0, 0, 0}},
		{"exponential doubles up to the cap", Policy{Kind: Exponential, Base: 100 * ms, Cap: time.Second},
			[]time.Duration{100 * ms, 200 * ms, 400 * ms, 800 * ms, time.Second, time.Second}},
		{"exponential with base = cap", Policy{Kind: Exponential, Base: time.Second, Cap: time.Second},
			[]time.Duration{time.Second, time.Second}},
		// The draws of a PCG seeded (1, 2), pinned: a change of the formula
		// or of the draw order shows here.
		{"full jitter draws below min(cap, base·2^retry)", Policy{Kind: FullJitter, Base: 100 * ms, Cap: time.Second},
			fullJitterGolden},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, 2))
			for i, want := range tt.want {
				if got := tt.p.Delay(i, rng); got != want {
					t.Errorf("Delay(%d) = %v, want %v", i, got, want)
				}
			}
		})
	}
}

// fullJitterGolden is Delay(0..5) of FullJitter{100ms, 1s} from PCG(1, 2).
var fullJitterGolden = []time.Duration{76937326, 123287244, 313771200, 637277262, 234276270, 41205257}

// Full jitter stays inside its window for every retry, whatever the seed,
// and a huge retry counter cannot overflow past the cap.
func TestFullJitterBounds(t *testing.T) {
	p := Policy{Kind: FullJitter, Base: 50 * time.Millisecond, Cap: 2 * time.Second}
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 7))
		for _, retry := range []int{0, 1, 2, 3, 5, 6, 10, 1000, 1 << 30} {
			window := min(p.Cap, p.Base<<min(retry, 20))
			if d := p.Delay(retry, rng); d < 0 || d >= window {
				t.Fatalf("seed %d retry %d: %v outside [0, %v)", seed, retry, d, window)
			}
		}
	}
}

func TestPolicyValidate(t *testing.T) {
	for _, tt := range []struct {
		p    Policy
		want string // "" valid, else a substring
	}{
		{Policy{Kind: Immediate}, ""},
		{Policy{Kind: FullJitter, Base: time.Millisecond, Cap: time.Second, StableAfter: time.Second}, ""},
		{Policy{Kind: "linear"}, `policy "linear"`},
		{Policy{Kind: Exponential, Cap: time.Second}, "base 0s"},
		{Policy{Kind: FullJitter, Base: time.Second, Cap: time.Millisecond}, "base <= cap"},
		{Policy{Kind: FullJitter, Base: time.Second, Cap: 2 * time.Hour}, "cap <= 1h0m0s"},
		{Policy{Kind: Exponential, Base: time.Second, Cap: time.Second, StableAfter: -1}, "stable-after"},
	} {
		err := tt.p.Validate()
		if (err == nil) != (tt.want == "") || (err != nil && !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("%+v: error %v, want %q", tt.p, err, tt.want)
		}
	}
}

// The retry counter: reset after a stable connection only (or on every
// open with StableAfter 0), and taken twice by a doubled schedule.
func TestRetryCounter(t *testing.T) {
	ms := time.Millisecond
	failed := connEnd{errored: true}
	brief := connEnd{opened: true, openFor: 200 * ms}
	stable := connEnd{opened: true, openFor: 5 * time.Second}
	for _, tt := range []struct {
		name        string
		stableAfter time.Duration
		ends        []connEnd
		doubled     []bool // the end was scheduled twice
		want        []int  // the retries taken, in order
	}{
		{"failures count up", time.Second, []connEnd{failed, failed, failed}, nil, []int{0, 1, 2}},
		{"a brief open does not reset", time.Second, []connEnd{failed, failed, brief, brief}, nil, []int{0, 1, 2, 3}},
		{"a stable open resets", time.Second, []connEnd{failed, failed, stable, failed}, nil, []int{0, 1, 0, 1}},
		{"reset on every open", 0, []connEnd{failed, failed, brief, failed, brief}, nil, []int{0, 1, 0, 1, 0}},
		{"double schedule takes two", time.Second, []connEnd{failed, failed}, []bool{true, true}, []int{0, 1, 2, 3}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := &client{cfg: Config{Policy: Policy{Kind: Immediate, StableAfter: tt.stableAfter}},
				rng: rand.New(rand.NewPCG(1, 1))}
			var got []int
			for i, e := range tt.ends {
				c.resetIfStable(e)
				r, _ := c.next()
				got = append(got, r)
				if i < len(tt.doubled) && tt.doubled[i] {
					r, _ = c.next()
					got = append(got, r)
				}
			}
			if len(got) != len(tt.want) {
				t.Fatalf("retries %v, want %v", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Fatalf("retries %v, want %v", got, tt.want)
				}
			}
		})
	}
}
