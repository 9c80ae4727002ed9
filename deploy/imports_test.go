package deploy_test

import (
	"os/exec"
	"strings"
	"testing"
)

// The authorizer runs before every request: it stays small by linking neither the HTML
// sanitiser nor the calendar engine nor the document store (make sizes prints the sizes).
func TestAuthorizerLinksNeitherSanitiserNorEngine(t *testing.T) {
	cmd := exec.Command("go", "list", "-tags", "lambda.norpc", "-deps", "./functions/authorizer")
	cmd.Dir = root
	cmd.Env = append(cmd.Environ(), "GOOS=linux", "GOARCH=arm64", "CGO_ENABLED=0")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	deps := strings.Fields(string(out))
	for _, banned := range []string{
		"github.com/microcosm-cc/bluemonday",
		"github.com/lorekeep/lorekeep/shared/calengine",
		"github.com/lorekeep/lorekeep/shared/domain",
		"github.com/lorekeep/lorekeep/shared/store",
		"github.com/aws/aws-sdk-go-v2/config",
		"text/template",
		"html/template",
	} {
		for _, d := range deps {
			if d == banned {
				t.Errorf("the authorizer links %s", banned)
			}
		}
	}
}

// No Lambda links the SDK's config package (credentials come from the environment) nor the
// template packages (their reflection keeps every method of every type alive), nor the
// DynamoDB client's schemas package: from service/dynamodb v1.69.0 on, the client's
// schema-based (de)serialisation builds every shape of the DynamoDB model at init, about
// 0.5 MB of every binary that talks to DynamoDB, used or not (the 8 MB budget, make sizes).
func TestLambdasLinkNeitherSDKConfigNorTemplates(t *testing.T) {
	for fn, pkg := range functionPackages {
		cmd := exec.Command("go", "list", "-tags", "lambda.norpc", "-deps", "./"+pkg)
		cmd.Dir = root
		cmd.Env = append(cmd.Environ(), "GOOS=linux", "GOARCH=arm64", "CGO_ENABLED=0")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go list %s: %v", pkg, err)
		}
		for _, d := range strings.Fields(string(out)) {
			if d == "github.com/aws/aws-sdk-go-v2/config" || d == "text/template" || d == "html/template" ||
				d == "github.com/aws/aws-sdk-go-v2/service/dynamodb/schemas" {
				t.Errorf("%s links %s", fn, d)
			}
		}
	}
}
