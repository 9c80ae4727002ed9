// Package deploy checks Lorekeep's deployment artefacts without AWS: template.yaml is parsed and
// compared with the design contract, the Makefile and the store's table schema, and every sample
// event in events/ is replayed through the same handlers the Lambdas run, over DynamoDB Local.
// It holds tests only.
package deploy
