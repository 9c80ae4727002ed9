# Lorekeep. `make run` and `make test` set up everything they need on a fresh machine.
GO ?= go
# Lambda builds (make build, make sizes and `sam build` all go through these targets), with the
# compiler's normal optimisations and the current releases of every dependency. A function's
# size is bounded by Lambda's own limits (250 MB, 50 MB zipped; deploy's build test); its cold
# start is measured by `make bench`'s BenchmarkColdStart (DESIGN 6), not walled by bytes:
#   -ldflags "-s -w"   no symbol table or DWARF (a panic's stack trace keeps its function names).
#   lambda.norpc       aws-lambda-go without the legacy Go 1.x RPC mode (provided.al2023).
LAMBDA_BUILD = CGO_ENABLED=0 GOOS=linux GOARCH=arm64 $(GO) build -tags lambda.norpc -trimpath -ldflags "-s -w"

.PHONY: run test local-invoke rie race-long bench fuzz deps build vet clean sizes vulncheck docs \
	build-AuthorizerFunction build-LocationsFunction build-CalendarsFunction \
	build-EntityEventsFunction build-EntityNotesFunction build-MetaFunction build-EntitiesFunction \
	build-SweeperFunction build-WebhookRoutesFunction build-WebhooksFunction build-WebhookDeliveryFunction build-ImagesFunction build-MapsFunction build-McpFunction

run: ## the API on 127.0.0.1:3000 over DynamoDB Local, with a demo campaign and token
	scripts/run.sh

test: ## every test, against a DynamoDB Local started and stopped here
	scripts/test.sh

local-invoke: ## every sample event through its function's binary under the Lambda Runtime Interface Emulator
	scripts/local-invoke.sh

# Rounds per scenario: LOREKEEP_RACE_ROUNDS (default 50), racetest's scenarios and the tags' contended
# entity_tags (TestContendedEntityTags). No expect-fail gate here.
race-long: ## the race and fault suite, many rounds, with a per-scenario summary
	LOREKEEP_RACE_ROUNDS=$${LOREKEEP_RACE_ROUNDS:-50} scripts/test.sh -v -run 'TestRaces|TestFault|TestContended|TestLostWrite' ./shared/racetest/ ./shared/tags/

bench: ## benchmarks of the HTTP handlers against DynamoDB Local
	scripts/test.sh -run '^$$' -bench . -benchmem ./...

# Every Fuzz* target of the repository, found by scripts/fuzz.sh, FUZZTIME each; `make test`
# replays their seed corpora (testdata/fuzz/) only.
FUZZTIME ?= 20s
fuzz: ## every Go fuzz target for FUZZTIME each (default 20s), against DynamoDB Local
	FUZZTIME=$(FUZZTIME) scripts/fuzz.sh

deps: ## Go modules, the Lambda emulator, Java, the DynamoDB Local jar and CloudFormation's resource specification
	$(GO) mod download
	$(MAKE) rie
	scripts/dynamodb-local.sh install
	scripts/cfnspec.sh install >/dev/null

FUNCTIONS = AuthorizerFunction LocationsFunction CalendarsFunction EntityEventsFunction EntityNotesFunction MetaFunction EntitiesFunction \
	SweeperFunction WebhookRoutesFunction WebhooksFunction WebhookDeliveryFunction ImagesFunction MapsFunction McpFunction

build: ## every Lambda for linux/arm64, as `sam build` does
	for f in $(FUNCTIONS); do $(MAKE) build-$$f ARTIFACTS_DIR=.aws-sam/build/$$f || exit 1; done

vet:
	$(GO) vet ./...

sizes: ## build every Lambda and print its size, raw and zipped, against Lambda's limits
	scripts/sizes.sh

# govulncheck needs the Go vulnerability database: online it fetches it; offline, pass a copy
# of it (a directory or an unpacked zip) with VULNDB=file:///path/to/vulndb (see README).
VULNCHECK = golang.org/x/vuln/cmd/govulncheck@v1.9.0
VULNDB ?=
vulncheck: ## known vulnerabilities reachable from the code (govulncheck)
	$(GO) run $(VULNCHECK) $(if $(VULNDB),-db $(VULNDB)) ./...

docs: ## vendor Redoc's bundle for the /docs page (from the npm registry into shared/apidoc/docs; REDOC_VERSION)
	scripts/docs.sh vendor

# make local-invoke runs the functions under the official Lambda Runtime Interface Emulator
# (the Runtime API of Lambda and of sam local's images), a Go module pinned here and installed
# from the module proxy into RIE_BIN (the test's temporary directory); nothing of it is vendored.
RIE = github.com/aws/aws-lambda-runtime-interface-emulator/cmd/aws-lambda-rie@v0.0.0-20261030222936-bef5c4ba774d
RIE_BIN ?= .local/bin
rie: ## the Lambda Runtime Interface Emulator, into RIE_BIN (default .local/bin)
	GOBIN=$(abspath $(RIE_BIN)) $(GO) install $(RIE)

# sam build (BuildMethod: makefile) calls build-<LogicalId> with ARTIFACTS_DIR set.
build-AuthorizerFunction:
	$(LAMBDA_BUILD) -o $(ARTIFACTS_DIR)/bootstrap ./functions/authorizer

build-LocationsFunction:
	$(LAMBDA_BUILD) -o $(ARTIFACTS_DIR)/bootstrap ./functions/locations

build-MapsFunction:
	$(LAMBDA_BUILD) -o $(ARTIFACTS_DIR)/bootstrap ./functions/maps

build-CalendarsFunction:
	$(LAMBDA_BUILD) -o $(ARTIFACTS_DIR)/bootstrap ./functions/calendars

build-EntityEventsFunction:
	$(LAMBDA_BUILD) -o $(ARTIFACTS_DIR)/bootstrap ./functions/entity-events

build-EntityNotesFunction:
	$(LAMBDA_BUILD) -o $(ARTIFACTS_DIR)/bootstrap ./functions/entity-notes

build-MetaFunction:
	$(LAMBDA_BUILD) -o $(ARTIFACTS_DIR)/bootstrap ./functions/meta

build-EntitiesFunction:
	$(LAMBDA_BUILD) -o $(ARTIFACTS_DIR)/bootstrap ./functions/entities

build-SweeperFunction:
	$(LAMBDA_BUILD) -o $(ARTIFACTS_DIR)/bootstrap ./functions/sweeper

build-WebhookRoutesFunction:
	$(LAMBDA_BUILD) -o $(ARTIFACTS_DIR)/bootstrap ./functions/webhook-routes

build-WebhooksFunction:
	$(LAMBDA_BUILD) -o $(ARTIFACTS_DIR)/bootstrap ./functions/webhooks

build-WebhookDeliveryFunction:
	$(LAMBDA_BUILD) -o $(ARTIFACTS_DIR)/bootstrap ./functions/webhook-delivery

build-ImagesFunction:
	$(LAMBDA_BUILD) -o $(ARTIFACTS_DIR)/bootstrap ./functions/images

build-McpFunction:
	$(LAMBDA_BUILD) -o $(ARTIFACTS_DIR)/bootstrap ./functions/mcp

clean:
	rm -rf .aws-sam .local/bin
