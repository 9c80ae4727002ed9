package calendarmonth_test

import (
	"os"
	"testing"

	"github.com/lorekeep/lorekeep/shared/testing/dynamotest"
)

func TestMain(m *testing.M) {
	code := dynamotest.Main(m)
	closeBrowser()
	os.Exit(code)
}
