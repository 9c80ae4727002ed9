package domain_test

import (
	"testing"

	"github.com/lorekeep/lorekeep/shared/domain"
)

func TestImageSize(t *testing.T) {
	t.Parallel()
	cases := []struct {
		path string
		w, h int64
		ok   bool
	}{
		{"img/1/20261125T010203-ab12." + domain.ImageSizedExt(1920, 1080, "png"), 1920, 1080, true},
		{"img/1/20261125T010203-ab12.1x1.jpg", 1, 1, true},
		{"img/1/20261125T010203-ab12.png", 0, 0, false}, // stored before paths carried the size
		{"img/1/20261125T010203-ab12.0x5.png", 0, 0, false},
		{"img/1/20261125T010203-ab12.-3x5.png", 0, 0, false},
		{"img/1/20261125T010203-ab12.99999999999x5.png", 0, 0, false},
		{"img/1/20261125T010203-ab12.axb.png", 0, 0, false},
		{"img/1.2x3/name", 0, 0, false},
		{"", 0, 0, false},
	}
	for _, c := range cases {
		w, h, ok := domain.ImageSize(c.path)
		if w != c.w || h != c.h || ok != c.ok {
			t.Errorf("ImageSize(%q) = %d, %d, %v; want %d, %d, %v", c.path, w, h, ok, c.w, c.h, c.ok)
		}
	}
	if got := domain.ImageThumbPath("img/1/x.10x20.png"); got != "img/1/x.10x20.thumb.png" {
		t.Errorf("thumb path %q", got)
	}
}
