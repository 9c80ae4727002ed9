package entityabilities_test

import (
	"os"
	"testing"

	"github.com/lorekeep/lorekeep/shared/testing/dynamotest"
)

func TestMain(m *testing.M) { os.Exit(dynamotest.Main(m)) }
