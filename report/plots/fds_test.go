package plots

import (
	"bytes"
	"fmt"
	"image/png"
	"slices"
	"testing"

	"github.com/shutdownlab/shutdownlab/internal/fixture"
	"github.com/shutdownlab/shutdownlab/report/plotkit"
)

// tick returns the samples of one tick of a replica
// (internal/fixture).
var tick = fixture.ResourceTick

func TestFDSeriesOf(t *testing.T) {
	samples := slices.Concat(tick("replica-1", 2e9, 4), tick("replica-0", 1e9, 3, 2), tick("replica-0", 3e9, 6))
	got := fdSeriesOf(samples, 1e9)
	want := []fdSeries{
		{Replica: "replica-0", Points: []plotkit.Point{{X: 0, Y: 5}, {X: 2, Y: 6}}},
		{Replica: "replica-1", Points: []plotkit.Point{{X: 1, Y: 4}}},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("fdSeriesOf = %v, want %v", got, want)
	}
}

// With fd series the latency plot grows an fd panel underneath: a taller
// PNG than without.
func TestRenderLatencyWithFDs(t *testing.T) {
	d := latencyData{Series: []latencySeries{{Key: seriesOK, Points: []plotkit.Point{{X: 0.5, Y: 10}}, Total: 1}},
		Markers: []plotkit.Marker{{Name: plotkit.MarkerAction, Label: "t0 action sent +0 ms", X: 1}}}
	height := func(d latencyData) int {
		b, err := renderLatency(d, "test")
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		return img.Bounds().Dy()
	}
	plain := height(d)
	d.FDs = []fdSeries{{Replica: "replica-0", Points: []plotkit.Point{{X: -0.5, Y: 7}, {X: 2, Y: 12}}}}
	if withFDs := height(d); withFDs <= plain {
		t.Errorf("height with an fd panel %d, without %d: want taller", withFDs, plain)
	}
}
