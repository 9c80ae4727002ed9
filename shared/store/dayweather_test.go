package store_test

import (
	"context"
	"errors"
	"testing"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/calendars/calstore"
	"github.com/lorekeep/lorekeep/shared/calengine"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/domain/timeline"
	"github.com/lorekeep/lorekeep/shared/store"
	"github.com/lorekeep/lorekeep/shared/store/internal/storetest"
	"github.com/lorekeep/lorekeep/shared/store/ops"
	"github.com/lorekeep/lorekeep/shared/testing/dynamotest"
)

// TestCalendarWeatherFollowsItsCalendar: a calendar's trash keeps its weather for a restore;
// the trash's purge removes it, day key, copies and counters with the partition.
func TestCalendarWeatherFollowsItsCalendar(t *testing.T) {
	st, _ := dynamotest.NewStore(t)
	ctx := context.Background()
	admin, c := storetest.OwnedCampaign(t, st, domain.Campaign{Name: "c"})
	meta := domain.Meta{CampaignID: c.ID, CreatedBy: admin.ID}
	cal := timeline.Calendar{Meta: meta, Owner: domain.Owner{Name: "Reckoning"}}
	if err := calstore.New(st).CreateCalendar(ctx, &cal); err != nil {
		t.Fatal(err)
	}
	day := calengine.Date{Year: 3, Month: 1, Day: 2}
	w := timeline.DayWeather{Meta: meta, CalendarID: cal.ID, Date: day, Weather: "rain", Visibility: domain.VisibilityAll}
	if err := calstore.New(st).CreateDayWeather(ctx, &w); err != nil {
		t.Fatal(err)
	}
	audit := func(when string) {
		t.Helper()
		if problems, err := ops.Audit(ctx, st, c.ID); err != nil || len(problems) > 0 {
			t.Fatalf("audit %s: %v %v", when, problems, err)
		}
	}
	kept := func(want int) {
		t.Helper()
		ws, err := calstore.New(st).DayWeatherBetween(ctx, c.ID, cal.ID, day, day)
		if err != nil || len(ws) != want {
			t.Fatalf("day keys: %v %v, want %d", ws, err, want)
		}
	}
	audit("created")
	if err := calstore.New(st).DeleteCalendar(ctx, &cal); err != nil {
		t.Fatal(err)
	}
	kept(1)
	audit("trashed")
	if err := st.RestoreEntity(ctx, c.ID, cal.EntityID, admin.ID); err != nil {
		t.Fatal(err)
	}
	if _, got, err := calstore.New(st).GetDayWeatherAndCalendar(ctx, c.ID, cal.ID, w.ID); err != nil || got.Weather != "rain" {
		t.Fatalf("restored weather: %+v %v", got, err)
	}
	audit("restored")
	back, err := calstore.New(st).GetCalendar(ctx, c.ID, cal.ID)
	if err != nil {
		t.Fatal(err)
	}
	if err := calstore.New(st).DeleteCalendar(ctx, back); err != nil {
		t.Fatal(err)
	}
	if err := store.ExpireTrash(ctx, st, c.ID, cal.EntityID); err != nil {
		t.Fatal(err)
	}
	if n, _, err := st.SweepPurges(ctx); err != nil || n != 1 {
		t.Fatalf("purge: %d %v", n, err)
	}
	kept(0)
	if _, _, err := calstore.New(st).GetDayWeatherAndCalendar(ctx, c.ID, cal.ID, w.ID); !errors.Is(err, apperr.ErrNotFound) {
		t.Fatalf("purged weather: %v", err)
	}
	audit("purged")
}
