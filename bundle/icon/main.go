// Command icon draws the bundle's icon, icon.png: a white speech bubble
// holding three dots, on a rounded square of Go's blue, 512 by 512 pixels
// (the size Claude Desktop shows best, says mcpb validate). It draws with
// the standard library alone, each pixel from 4 × 4 samples so that edges
// are smooth; main_test.go fails when icon.png is not what it draws.
//
// Usage, from the checkout:
//
//	go -C bundle run ./icon
package main

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
)

// size is the icon's width and height in pixels; file is where it goes,
// beside manifest.json, whose "icon" names it.
const (
	size = 512
	file = "icon.png"
)

var (
	blue  = color.NRGBA{0x00, 0xad, 0xd8, 0xff} // Go's "Gopher blue", #00ADD8
	white = color.NRGBA{0xff, 0xff, 0xff, 0xff}
)

func main() {
	data, err := encode()
	if err == nil {
		err = os.WriteFile(file, data, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "icon:", err)
		os.Exit(1)
	}
}

// encode returns the icon as a PNG file.
func encode() ([]byte, error) {
	var b bytes.Buffer
	err := (&png.Encoder{CompressionLevel: png.BestCompression}).Encode(&b, draw())
	return b.Bytes(), err
}

// A layer is a shape, inside(x, y) for a point in pixels, and its colour;
// draw paints the layers in order, each over the ones before.
type layer struct {
	inside func(x, y float64) bool
	color  color.NRGBA
}

var layers = []layer{
	{func(x, y float64) bool { return inRoundedRect(x, y, 0, 0, size, size, 112) }, blue},
	{bubble, white},
	{func(x, y float64) bool { return inCircle(x, y, 176, 232, 30) }, blue},
	{func(x, y float64) bool { return inCircle(x, y, 256, 232, 30) }, blue},
	{func(x, y float64) bool { return inCircle(x, y, 336, 232, 30) }, blue},
}

// bubble is the speech bubble: a rounded rectangle, and its tail, a
// triangle below its left side.
func bubble(x, y float64) bool {
	return inRoundedRect(x, y, 96, 128, 416, 336, 64) || inTriangle(x, y, 150, 320, 236, 320, 132, 412)
}

// samples is how many samples a pixel has along each side.
const samples = 4

func draw() *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, size, size))
	for py := range size {
		for px := range size {
			var r, g, b, a float64 // premultiplied, 0 to 1
			for _, l := range layers {
				cover := 0.0
				for sy := range samples {
					for sx := range samples {
						if l.inside(float64(px)+(float64(sx)+0.5)/samples, float64(py)+(float64(sy)+0.5)/samples) {
							cover++
						}
					}
				}
				cover /= samples * samples
				r = r*(1-cover) + cover*float64(l.color.R)/255
				g = g*(1-cover) + cover*float64(l.color.G)/255
				b = b*(1-cover) + cover*float64(l.color.B)/255
				a = a*(1-cover) + cover
			}
			if a > 0 {
				img.SetNRGBA(px, py, color.NRGBA{unit(r / a), unit(g / a), unit(b / a), unit(a)})
			}
		}
	}
	return img
}

// unit turns a value from 0 to 1 into a byte.
func unit(v float64) uint8 { return uint8(math.Round(v * 255)) }

func inCircle(x, y, cx, cy, r float64) bool { return (x-cx)*(x-cx)+(y-cy)*(y-cy) <= r*r }

// inRoundedRect says whether (x, y) is in the rectangle from (x0, y0) to
// (x1, y1) whose corners are rounded with radius r.
func inRoundedRect(x, y, x0, y0, x1, y1, r float64) bool {
	if x < x0 || x > x1 || y < y0 || y > y1 {
		return false
	}
	cx := math.Min(math.Max(x, x0+r), x1-r) // the nearest point of the inner rectangle
	cy := math.Min(math.Max(y, y0+r), y1-r)
	return inCircle(x, y, cx, cy, r)
}

// inTriangle says whether (x, y) is in the triangle of the three points.
func inTriangle(x, y, ax, ay, bx, by, cx, cy float64) bool {
	side := func(px, py, qx, qy float64) float64 { return (qx-px)*(y-py) - (qy-py)*(x-px) }
	d1, d2, d3 := side(ax, ay, bx, by), side(bx, by, cx, cy), side(cx, cy, ax, ay)
	return (d1 >= 0 && d2 >= 0 && d3 >= 0) || (d1 <= 0 && d2 <= 0 && d3 <= 0)
}
