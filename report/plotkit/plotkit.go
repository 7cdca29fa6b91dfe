// Package plotkit is what every PNG of a report is drawn with: the
// resolution, the fonts (gonum's embedded Liberation fonts), a plot with a
// grid and a legend column, tick labels, the palette (Okabe–Ito colours,
// readable with colour-blindness), the lines every time plot shares, and
// the encoder. Sizes, fonts and colours are fixed, so the same inputs give
// the same PNG bytes.
//
// It knows nothing of results or metrics: report/plots draws the core
// plots with it, and each capability section draws its own.
package plotkit

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// DPI is the resolution of every PNG.
const DPI = 96

// The canvas of a time plot: the plot on the left, the legend in a column
// of LegendWidth on the right (it never covers a point). Plots with longer
// legends widen the canvas by what their legend needs beyond LegendWidth.
var (
	Width       = 10 * vg.Inch
	Height      = 4.5 * vg.Inch
	LegendWidth = 2.7 * vg.Inch // fits "t signal (engine_event) +16.8 ms"
)

// Sans is the font of every text: gonum's embedded Liberation Sans.
func Sans(size float64) font.Font {
	return font.From(font.Font{Typeface: "Liberation", Variant: "Sans"}, vg.Points(size))
}

// NewPlot returns a plot with sans-serif text, a grid and a title, and a
// legend to be drawn beside it (top-left of its own column).
func NewPlot(title string) (*plot.Plot, *plot.Legend) {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font = Sans(12)
	p.Title.Padding = vg.Points(6)
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = Sans(11)
		a.Tick.Label.Font = Sans(10)
		a.Tick.Marker = NiceTicks{}
	}
	p.Add(plotter.NewGrid())
	leg := plot.NewLegend()
	leg.Top, leg.Left = true, true
	leg.TextStyle.Font = Sans(10)
	leg.Padding = vg.Points(3)
	leg.ThumbnailWidth = vg.Points(24)
	return p, &leg
}

// NiceTicks labels about 6 to 12 steps of 1, 2 or 5 × 10^k, with an
// unlabelled minor tick halfway.
type NiceTicks struct{}

// Ticks implements plot.Ticker.
func (NiceTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) {
		return []plot.Tick{{Value: lo, Label: strconv.FormatFloat(lo, 'g', -1, 64)}}
	}
	span := hi - lo
	step := math.Pow(10, math.Floor(math.Log10(span/10)))
	for _, m := range []float64{1, 2, 5, 10} {
		if span/(step*m) <= 12 {
			step *= m
			break
		}
	}
	var ticks []plot.Tick
	prec := max(0, -int(math.Floor(math.Log10(step))))
	for i := math.Ceil(lo / step * 2); i/2*step <= hi+1e-9*span; i++ {
		v := i / 2 * step
		t := plot.Tick{Value: v}
		if int64(i)%2 == 0 {
			t.Label = strconv.FormatFloat(v, 'f', prec, 64)
		}
		ticks = append(ticks, t)
	}
	return ticks
}

// RenderPNG draws fn onto a w × h canvas and encodes it; a panic inside
// gonum/plot becomes an error.
func RenderPNG(w, h vg.Length, fn func(draw.Canvas) error) (b []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			b, err = nil, fmt.Errorf("plot panicked: %v", r)
		}
	}()
	c := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(DPI), vgimg.UseBackgroundColor(color.White))
	if err := fn(draw.New(c)); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if _, err := (vgimg.PngCanvas{Canvas: c}).WriteTo(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Point is one point of a plot, in data units.
type Point struct {
	X, Y float64
}

// Points adapts a slice of points to plotter.XYer.
type Points []Point

// Len implements plotter.XYer.
func (p Points) Len() int { return len(p) }

// XY implements plotter.XYer.
func (p Points) XY(i int) (float64, float64) { return p[i].X, p[i].Y }
