package plotkit

import (
	"image/color"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// RGB is an opaque colour from 0xRRGGBB.
func RGB(x uint32) color.RGBA {
	return color.RGBA{R: uint8(x >> 16), G: uint8(x >> 8), B: uint8(x), A: 255}
}

// VariantColors are every plot's variant colours (Okabe–Ito), in variant
// order; line dashes tell variants apart past the seventh.
var VariantColors = []color.RGBA{RGB(0x0072B2), RGB(0xD55E00), RGB(0x009E73), RGB(0xCC79A7), RGB(0xE69F00), RGB(0x56B4E9), RGB(0x000000)}

// VariantLineStyle is the line of variant i.
func VariantLineStyle(i int) draw.LineStyle {
	s := draw.LineStyle{Color: VariantColors[i%len(VariantColors)], Width: vg.Points(1.5)}
	if i >= len(VariantColors) {
		s.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
	}
	return s
}
