package calendarmonth_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

// One headless Chromium (Debian's, which scripts/test.sh installs) for the package's tests,
// each test in tabs of its own.
var browser struct {
	once   sync.Once
	ctx    context.Context
	cancel []context.CancelFunc
	err    error
}

func closeBrowser() {
	for i := len(browser.cancel) - 1; i >= 0; i-- {
		browser.cancel[i]()
	}
}

// tab opens a tab of the shared browser for t; t fails when there is no Chromium.
func tab(t *testing.T) context.Context {
	t.Helper()
	browser.once.Do(func() {
		path := ""
		for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
			if p, err := exec.LookPath(name); err == nil {
				path = p
				break
			}
		}
		if path == "" {
			browser.err = fmt.Errorf("no Chromium: run the tests with scripts/test.sh (make test), which installs Debian's chromium")
			return
		}
		opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.NoSandbox, chromedp.DisableGPU,
			chromedp.Flag("disable-quic", true), chromedp.Flag("disable-component-update", true), chromedp.WindowSize(1000, 900),
			chromedp.Flag("force-device-scale-factor", "1"), chromedp.Flag("hide-scrollbars", true))
		actx, c1 := chromedp.NewExecAllocator(context.Background(), opts...)
		bctx, c2 := chromedp.NewContext(actx)
		browser.ctx, browser.cancel = bctx, []context.CancelFunc{c1, c2}
		browser.err = chromedp.Do(bctx)
	})
	if browser.err != nil {
		t.Fatal(browser.err)
	}
	ctx, cancel := chromedp.NewContext(browser.ctx)
	ctx, stop := context.WithTimeout(ctx, 90*time.Second)
	t.Cleanup(func() { stop(); cancel() })
	return ctx
}

// open loads url in ctx's tab (with the bearer token when given) and screenshots the page.
func open(t *testing.T, ctx context.Context, url, token string) image.Image {
	t.Helper()
	if token != "" {
		if _, err := chromedp.Call(ctx, network.SetExtraHTTPHeaders, network.SetExtraHTTPHeadersParams{Headers: network.Headers{"Authorization": "Bearer " + token}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(url), chromedp.WaitReady(chromedp.CSS(":root"))); err != nil {
		t.Fatalf("%s: %v", url, err)
	}
	shot, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		t.Fatal(err)
	}
	if dir := os.Getenv("LOREKEEP_SCREENSHOTS"); dir != "" { // to look at them
		_ = os.WriteFile(dir+"/"+strings.ReplaceAll(t.Name(), "/", "_")+".png", shot, 0o644)
	}
	return img
}

func eval[T any](t *testing.T, ctx context.Context, js string) T {
	t.Helper()
	out, err := chromedp.Run(ctx, chromedp.Evaluate[T](js))
	if err != nil {
		t.Fatalf("%s: %v", js, err)
	}
	return out
}

// near reports whether c is within 6 of want in each channel.
func near(c color.Color, want color.RGBA) bool {
	r, g, b, _ := c.RGBA()
	d := func(x uint32, y uint8) bool { v := int(x>>8) - int(y); return v > -7 && v < 7 }
	return d(r, want.R) && d(g, want.G) && d(b, want.B)
}

type box struct{ X, Y, W, H float64 }

// cellLayout is, for each day cell of the rendered table, its date and column.
const cellLayout = `[...document.querySelectorAll('td.day')].map(td => ({date: td.dataset.date, col: td.cellIndex}))`

// The month page in Chromium: each day in its weekday column as the month's JSON says (for
// each weekday count and week mode), days outside the week in a row of their own, the current
// day's cell painted in the theme's marker colour (pixels of the screenshot), the moons drawn,
// and each audience's events only.
func TestBrowserMonthPage(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	restart := harptos()
	restart["name"], restart["weekday"], restart["week_restart"] = "Restarting", []any{"A", "B", "C", "D", "E", "F", "G"}, true
	seven := harptos()
	seven["name"], seven["weekday"] = "Seven", []any{"A", "B", "C", "D", "E", "F", "G"}
	cases := []struct {
		name        string
		body        map[string]any
		year, month int
		theme       string
		today       color.RGBA
	}{
		{"five weekdays, weeks run on", harptos(), 4, 2, "light", color.RGBA{0xff, 0xf2, 0xb3, 255}},
		{"seven weekdays, weeks restart", restart, 4, 2, "dark", color.RGBA{0x4a, 0x3b, 0x00, 255}},
		{"seven weekdays, after the intercalary month", seven, 4, 4, "light", color.RGBA{}},
		{"the intercalary month", harptos(), 4, 3, "light", color.RGBA{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, e.For(t), e.Campaign, c.body)
			_, share := f.share(t, map[string]any{"audience": "public"})
			q := fmt.Sprintf("?year=%d&month=%d&theme=%s", c.year, c.month, c.theme)
			month := f.Do("GET", f.path("/month"+q), e.Admin, nil).Data()
			want := map[string]float64{}
			outside := 0
			for _, w := range month["weeks"].([]any) {
				for i, d := range arr(w.(map[string]any)["cells"]) {
					if d != nil {
						want[d.(map[string]any)["date"].(string)] = float64(i)
					}
				}
				outside += len(arr(w.(map[string]any)["outside"]))
			}
			ctx := tab(t)
			shot := open(t, ctx, e.Server.URL+share+q, "")
			got := eval[[]struct {
				Date string
				Col  float64
			}](t, ctx, cellLayout)
			if len(got) != len(want) {
				t.Errorf("%d day cells, want %d", len(got), len(want))
			}
			for _, g := range got {
				if w, ok := want[g.Date]; !ok || w != g.Col {
					t.Errorf("%s in column %v, want %v", g.Date, g.Col, w)
				}
			}
			if n := eval[int](t, ctx, `document.querySelectorAll('td.outside span.day').length`); n != outside {
				t.Errorf("%d days outside the week, want %d", n, outside)
			}
			if n := eval[int](t, ctx, `document.querySelectorAll('thead th[scope=col]').length`); n != len(month["weekdays"].([]any)) {
				t.Errorf("%d column headers", n)
			}
			if c.today.A != 0 {
				b := eval[box](t, ctx, `(() => { const r = document.querySelector('td.today').getBoundingClientRect(); return {X: r.x, Y: r.y, W: r.width, H: r.height} })()`)
				if px := shot.At(int(b.X+b.W)-8, int(b.Y+b.H)-6); !near(px, c.today) {
					t.Errorf("today's cell at %v is %v, want %v", b, px, c.today)
				}
				other := eval[box](t, ctx, `(() => { const r = document.querySelector('td.day:not(.today)').getBoundingClientRect(); return {X: r.x, Y: r.y, W: r.width, H: r.height} })()`)
				if px := shot.At(int(other.X+other.W)-8, int(other.Y+other.H)-6); near(px, c.today) {
					t.Errorf("another day's cell is marked too: %v", px)
				}
			} else if n := eval[int](t, ctx, `document.querySelectorAll('.today').length`); n != 0 {
				t.Errorf("%d days marked current outside the current month", n)
			}
			moons := 0
			for _, w := range month["weeks"].([]any) {
				for _, d := range append(arr(w.(map[string]any)["cells"]), arr(w.(map[string]any)["outside"])...) {
					if d != nil {
						moons += len(d.(map[string]any)["moons"].([]any))
					}
				}
			}
			if n := eval[int](t, ctx, `document.querySelectorAll('.moons svg path.lit').length`); n != moons || (c.month != 3 && moons == 0) {
				t.Errorf("%d moons drawn, want %d", n, moons)
			}
		})
	}
	t.Run("events per audience", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, e.For(t), e.Campaign, harptos())
		_, public := f.share(t, map[string]any{"audience": "public"})
		_, member := f.share(t, map[string]any{"audience": "member"})
		for _, v := range []struct {
			who, url, token string
			want            []string
		}{
			{"public link", e.Server.URL + public, "", []string{"Fair <b>day</b>"}},
			{"member link", e.Server.URL + member, "", []string{"Fair <b>day</b>", "Guild"}},
			{"member", e.Server.URL + f.path("/month"), e.Member, []string{"Fair <b>day</b>", "Guild"}},
			{"admin", e.Server.URL + f.path("/month"), e.Admin, []string{"Fair <b>day</b>", "Guild", "Council", "Plot"}},
		} {
			ctx := tab(t)
			open(t, ctx, v.url, v.token)
			names := eval[[]string](t, ctx, `[...new Set([...document.querySelectorAll('ul.events li')].map(li => li.childNodes[0].textContent.trim()))]`)
			if fmt.Sprint(names) != fmt.Sprint(v.want) {
				t.Errorf("%s sees %q, want %q", v.who, names, v.want)
			}
			if n := eval[int](t, ctx, `document.scripts.length`); n != 0 {
				t.Errorf("%s: %d scripts on the page", v.who, n)
			}
		}
	})
}

// The SVG image in Chromium: it renders (the browser parses it as an image, its size as
// declared) with the current day's rectangle in the marker colour.
func TestBrowserMonthImage(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	f := newFixture(t, e, e.Campaign, harptos())
	_, share := f.share(t, map[string]any{"audience": "public"})
	ctx := tab(t)
	shot := open(t, ctx, e.Server.URL+share+"/month.svg?year=4&month=2", "")
	b := eval[box](t, ctx, `(() => { const r = document.querySelector('g.today rect').getBoundingClientRect(); return {X: r.x, Y: r.y, W: r.width, H: r.height} })()`)
	if b.W != 120 || b.H != 100 {
		t.Fatalf("today's rectangle: %v", b)
	}
	if px := shot.At(int(b.X+b.W)-10, int(b.Y)+50); !near(px, color.RGBA{0xff, 0xf2, 0xb3, 255}) {
		t.Errorf("today's rectangle at %v is %v (screenshot %v)", b, px, shot.Bounds())
	}
	var doc struct{ Root string }
	raw := eval[json.RawMessage](t, ctx, `({Root: document.documentElement.namespaceURI})`)
	_ = json.Unmarshal(raw, &doc)
	if doc.Root != "http://www.w3.org/2000/svg" {
		t.Errorf("the image's root: %q", doc.Root)
	}
}
