package plotkit

import (
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// A Marker is one vertical line of a time plot: a moment of the run.
type Marker struct {
	// Name is the marker's kind (MarkerAction, MarkerSignal, or a phase
	// name); the plot picks its line style by it.
	Name string
	// Label is the legend text, with the time after t₀.
	Label string
	// X is the moment in the plot's x units.
	X float64
}

// The names of the markers every time plot with an action shares.
const (
	// MarkerAction is t₀: the harness sent the action.
	MarkerAction = "t0"
	// MarkerSignal is t: the signal's best estimated arrival, when it
	// differs from t₀.
	MarkerSignal = "t"
)

// The lines of the markers several plots share: the action sent (t₀),
// the signal's arrival (t), the engine's exit of the acted-on replica.
var (
	ActionLine = draw.LineStyle{Color: RGB(0x000000), Width: vg.Points(1.5)}
	SignalLine = draw.LineStyle{Color: RGB(0xD55E00), Width: vg.Points(1.5), Dashes: []vg.Length{vg.Points(6), vg.Points(3)}}
	ExitLine   = draw.LineStyle{Color: RGB(0x7F0000), Width: vg.Points(2.5)}
)

// VLine is a vertical line across the whole data area at X (data units).
type VLine struct {
	X     float64
	Style draw.LineStyle
}

// Plot implements plot.Plotter.
func (l *VLine) Plot(c draw.Canvas, p *plot.Plot) {
	x := c.X(p.X.Norm(l.X))
	c.StrokeLine2(l.Style, x, c.Min.Y, x, c.Max.Y)
}

// Thumbnail implements plot.Thumbnailer: a short horizontal line.
func (l *VLine) Thumbnail(c *draw.Canvas) {
	y := c.Center().Y
	c.StrokeLine2(l.Style, c.Min.X, y, c.Max.X, y)
}

// HLine is a horizontal line across the whole data area at Y.
type HLine struct {
	Y     float64
	Style draw.LineStyle
}

// Plot implements plot.Plotter.
func (l *HLine) Plot(c draw.Canvas, p *plot.Plot) {
	y := c.Y(p.Y.Norm(l.Y))
	c.StrokeLine2(l.Style, c.Min.X, y, c.Max.X, y)
}

// Thumbnail implements plot.Thumbnailer: a short horizontal line.
func (l *HLine) Thumbnail(c *draw.Canvas) {
	y := c.Center().Y
	c.StrokeLine2(l.Style, c.Min.X, y, c.Max.X, y)
}
