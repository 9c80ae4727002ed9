// Package imagetest makes the image files the image tests upload and serve: each accepted
// format, files carrying metadata to strip, and decompression bombs.
package imagetest

import (
	"bytes"
	_ "embed"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
)

// Secret is the text the files with metadata carry: no processed picture may contain it.
const Secret = "GPS-SECRET-47.3769N-8.5417E"

// WebP is a 300x100 lossy WebP (golang.org/x/image's testdata, BSD licence): Go has no WebP encoder.
//
//go:embed sample.webp
var WebP []byte

func picture(w, h int) image.Image {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.Set(x, y, color.NRGBA{uint8(x), uint8(y), uint8(x ^ y), 255})
		}
	}
	return img
}

// PNG is a w x h PNG carrying Secret in a tEXt chunk and after its end.
func PNG(w, h int) []byte {
	var buf bytes.Buffer
	if err := png.Encode(&buf, picture(w, h)); err != nil {
		panic(err)
	}
	b := buf.Bytes()
	// a tEXt chunk after IHDR (8 bytes of signature, 25 of IHDR)
	text := chunk("tEXt", []byte("Comment\x00"+Secret))
	out := append(append(append([]byte{}, b[:33]...), text...), b[33:]...)
	return append(out, []byte("<script>"+Secret+"</script>")...)
}

// JPEG is a w x h JPEG carrying Secret in an EXIF (APP1) segment.
func JPEG(w, h int) []byte {
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, picture(w, h), &jpeg.Options{Quality: 90}); err != nil {
		panic(err)
	}
	b := buf.Bytes()
	payload := append([]byte("Exif\x00\x00"), []byte(Secret)...)
	seg := []byte{0xff, 0xe1, byte((len(payload) + 2) >> 8), byte(len(payload) + 2)}
	return append(append(append([]byte{}, b[:2]...), append(seg, payload...)...), b[2:]...)
}

// GIF is a w x h GIF of two frames (an animation) with Secret in a comment extension.
func GIF(w, h int) []byte { return GIFFrames(w, h, 2) }

// GIFFrames is a w x h GIF of n frames, white, red, black, white..., each shown 10/100 s,
// looping, with Secret in a comment extension.
func GIFFrames(w, h, n int) []byte {
	pal := color.Palette{color.Black, color.White, color.NRGBA{200, 30, 30, 255}}
	frame := func(c uint8) *image.Paletted {
		p := image.NewPaletted(image.Rect(0, 0, w, h), pal)
		for i := range p.Pix {
			p.Pix[i] = c
		}
		return p
	}
	g := &gif.GIF{}
	for i := range n {
		g.Image = append(g.Image, frame(uint8(i+1)%3))
		g.Delay = append(g.Delay, 10)
	}
	var buf bytes.Buffer
	if err := gif.EncodeAll(&buf, g); err != nil {
		panic(err)
	}
	b := buf.Bytes()
	// a comment extension (0x21 0xfe) before the trailer
	comment := append([]byte{0x21, 0xfe, byte(len(Secret))}, append([]byte(Secret), 0)...)
	return append(append(append([]byte{}, b[:len(b)-1]...), comment...), 0x3b)
}

// BombPNG is a tiny PNG whose header claims w x h pixels.
func BombPNG(w, h uint32) []byte {
	b := PNG(1, 1)
	binary.BigEndian.PutUint32(b[16:], w)
	binary.BigEndian.PutUint32(b[20:], h)
	binary.BigEndian.PutUint32(b[29:], crc32.ChecksumIEEE(b[12:29]))
	return b
}

func chunk(kind string, data []byte) []byte {
	out := binary.BigEndian.AppendUint32(nil, uint32(len(data)))
	out = append(out, kind...)
	out = append(out, data...)
	return binary.BigEndian.AppendUint32(out, crc32.ChecksumIEEE(append([]byte(kind), data...)))
}

// BombGIF is a GIF whose w x h screen holds frames frames of w x h pixels, each a few bytes of
// LZW data that does not decode: only the descriptors are real.
func BombGIF(w, h uint16, frames int) []byte {
	b := []byte("GIF89a")
	b = binary.LittleEndian.AppendUint16(b, w)
	b = binary.LittleEndian.AppendUint16(b, h)
	b = append(b, 0x80, 0, 0, 0, 0, 0, 255, 255, 255) // a global table of 2 colours
	for range frames {
		b = append(b, 0x2c, 0, 0, 0, 0)
		b = binary.LittleEndian.AppendUint16(b, w)
		b = binary.LittleEndian.AppendUint16(b, h)
		b = append(b, 0, 2, 2, 0x4c, 0x01, 0)
	}
	return append(b, 0x3b)
}

// Quadrants is a w x h picture whose quarters are red (top left), green (top right), blue
// (bottom left) and white (bottom right): its orientation shows.
func Quadrants(w, h int) image.Image {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			c := [2][2]color.RGBA{{{255, 0, 0, 255}, {0, 255, 0, 255}}, {{0, 0, 255, 255}, {255, 255, 255, 255}}}[y*2/h][x*2/w]
			img.SetRGBA(x, y, c)
		}
	}
	return img
}

// OrientedJPEG is img as a JPEG whose EXIF (APP1) segment says orientation o (a TIFF structure
// in big-endian byte order when motorola, else little-endian), with Secret in the segment too.
func OrientedJPEG(img image.Image, o uint16, motorola bool) []byte {
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 95}); err != nil {
		panic(err)
	}
	var bo binary.AppendByteOrder = binary.LittleEndian
	tiff := []byte("II")
	if motorola {
		bo, tiff = binary.BigEndian, []byte("MM")
	}
	tiff = bo.AppendUint16(tiff, 42)
	tiff = bo.AppendUint32(tiff, 8)
	tiff = bo.AppendUint16(tiff, 2) // two entries: ImageDescription (the secret), Orientation
	tiff = bo.AppendUint16(tiff, 0x010e)
	tiff = bo.AppendUint16(tiff, 2)
	tiff = bo.AppendUint32(tiff, uint32(len(Secret)+1))
	tiff = bo.AppendUint32(tiff, 8+2+2*12+4)
	tiff = bo.AppendUint16(tiff, 0x0112)
	tiff = bo.AppendUint16(tiff, 3)
	tiff = bo.AppendUint32(tiff, 1)
	tiff = bo.AppendUint16(tiff, o)
	tiff = bo.AppendUint16(tiff, 0)
	tiff = bo.AppendUint32(tiff, 0)
	tiff = append(append(tiff, Secret...), 0)
	payload := append([]byte("Exif\x00\x00"), tiff...)
	b := buf.Bytes()
	seg := []byte{0xff, 0xe1, byte((len(payload) + 2) >> 8), byte(len(payload) + 2)}
	return append(append(append([]byte{}, b[:2]...), append(seg, payload...)...), b[2:]...)
}
