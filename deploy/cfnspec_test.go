package deploy_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// The template is checked against CloudFormation's resource specification: the JSON document AWS
// publishes for every resource type (its properties, their types, which are required, its
// attributes), SAM's AWS::Serverless types included, as the npm package @aws-cdk/cfnspec ships
// it (scripts/cfnspec.sh installs it; make test runs that). Neither cfn-lint nor the SAM CLI can
// be installed here, so this is the deployment check that runs without AWS: what CloudFormation
// and the SAM transform would refuse for a name, a type, a missing property or a dangling
// reference fails here first. What it cannot see (limits of an account, a value's range) is
// AWS's to check at deploy time.

// cfnSpec is the part of the specification the check reads.
type cfnSpec struct {
	Version       string              `json:"ResourceSpecificationVersion"`
	ResourceTypes map[string]*specDef `json:"ResourceTypes"`
	PropertyTypes map[string]*specDef `json:"PropertyTypes"`
}

type specDef struct {
	Properties map[string]*specProp `json:"Properties"`
	Attributes map[string]any       `json:"Attributes"`
}

// specProp is one property. CloudFormation's types have one PrimitiveType or one Type (List and
// Map with an item type); SAM's may allow several (PrimitiveTypes, Types, and for list items
// the Inclusive* fields).
type specProp struct {
	Required                    bool     `json:"Required"`
	PrimitiveType               string   `json:"PrimitiveType"`
	Type                        string   `json:"Type"`
	PrimitiveItemType           string   `json:"PrimitiveItemType"`
	ItemType                    string   `json:"ItemType"`
	PrimitiveTypes              []string `json:"PrimitiveTypes"`
	Types                       []string `json:"Types"`
	PrimitiveItemTypes          []string `json:"PrimitiveItemTypes"`
	ItemTypes                   []string `json:"ItemTypes"`
	InclusivePrimitiveItemTypes []string `json:"InclusivePrimitiveItemTypes"`
	InclusiveItemTypes          []string `json:"InclusiveItemTypes"`
}

// loadSpec reads the specification that scripts/cfnspec.sh installs (it prints the path).
func loadSpec(t testing.TB) *cfnSpec {
	t.Helper()
	out, err := exec.Command(filepath.Join(root, "scripts", "cfnspec.sh"), "install").Output()
	if err != nil {
		t.Fatalf("scripts/cfnspec.sh install: %v (it fetches the specification from the npm registry)", err)
	}
	raw, err := os.ReadFile(strings.TrimSpace(string(out)))
	if err != nil {
		t.Fatal(err)
	}
	var s cfnSpec
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatalf("specification: %v", err)
	}
	if len(s.ResourceTypes) < 500 || s.ResourceTypes["AWS::Serverless::Function"] == nil {
		t.Fatalf("specification %s has %d resource types and no AWS::Serverless::Function", s.Version, len(s.ResourceTypes))
	}
	patchSpec(&s)
	return &s
}

// patchSpec corrects where the specification's SAM part disagrees with SAM itself (the SAM
// translator's documentation and code); each correction says why.
func patchSpec(s *cfnSpec) {
	// SAM reads AccessLogSettings (the stage's name for it); the specification has a typo.
	api := s.ResourceTypes["AWS::Serverless::HttpApi"].Properties
	api["AccessLogSettings"] = api["AccessLogSetting"]
	delete(api, "AccessLogSetting")
	// An EventInvokeConfig destination may name OnFailure alone (or OnSuccess alone).
	for _, p := range s.PropertyTypes["AWS::Serverless::Function.EventInvokeDestinationConfig"].Properties {
		p.Required = false
	}
	// SAM's DynamoDB event takes FunctionResponseTypes (ReportBatchItemFailures) since SAM
	// 1.37; specification 117.0.0 predates it.
	if ev := s.PropertyTypes["AWS::Serverless::Function.DynamoDBEvent"]; ev != nil {
		ev.Properties["FunctionResponseTypes"] = &specProp{Type: "List", PrimitiveItemType: "String"}
	}
	// SAM's SQS event takes FunctionResponseTypes (SAM 1.37) and ScalingConfig, the event
	// source mapping's (SAM 1.70); specification 117.0.0 predates both.
	if ev := s.PropertyTypes["AWS::Serverless::Function.SQSEvent"]; ev != nil {
		ev.Properties["FunctionResponseTypes"] = &specProp{Type: "List", PrimitiveItemType: "String"}
		if sc := s.PropertyTypes["AWS::Lambda::EventSourceMapping.ScalingConfig"]; sc != nil {
			s.PropertyTypes["AWS::Serverless::Function.ScalingConfig"] = sc
			ev.Properties["ScalingConfig"] = &specProp{Type: "ScalingConfig"}
		}
	}
	// SAM's resources have the attributes of the resource they become.
	s.ResourceTypes["AWS::Serverless::Function"].Attributes = s.ResourceTypes["AWS::Lambda::Function"].Attributes
	s.ResourceTypes["AWS::Serverless::HttpApi"].Attributes = s.ResourceTypes["AWS::ApiGatewayV2::Api"].Attributes
}

// pseudoParameters are CloudFormation's own parameters.
var pseudoParameters = []string{
	"AWS::AccountId", "AWS::NotificationARNs", "AWS::NoValue", "AWS::Partition", "AWS::Region",
	"AWS::StackId", "AWS::StackName", "AWS::URLSuffix",
}

// specCheck validates one template against the specification and collects every problem.
type specCheck struct {
	spec *cfnSpec
	tpl  cfn
	errs []string
}

func (c *specCheck) errorf(path, format string, args ...any) {
	c.errs = append(c.errs, path+": "+fmt.Sprintf(format, args...))
}

func checkTemplate(spec *cfnSpec, tpl cfn) []string {
	c := &specCheck{spec: spec, tpl: tpl}
	c.run()
	sort.Strings(c.errs)
	return c.errs
}

func (c *specCheck) run() {
	sections := []string{"AWSTemplateFormatVersion", "Transform", "Description", "Metadata", "Parameters", "Rules",
		"Mappings", "Conditions", "Globals", "Resources", "Outputs"}
	for k := range c.tpl {
		if !slices.Contains(sections, k) {
			c.errorf(k, "not a template section")
		}
	}
	if v := c.tpl["AWSTemplateFormatVersion"]; v != nil && v != "2010-09-09" {
		c.errorf("AWSTemplateFormatVersion", "%v, want 2010-09-09", v)
	}
	// AWS::Serverless types need the SAM transform.
	if len(c.resourcesOfPrefix("AWS::Serverless::")) > 0 && c.tpl["Transform"] != "AWS::Serverless-2016-10-31" {
		c.errorf("Transform", "%v: AWS::Serverless resources need AWS::Serverless-2016-10-31", c.tpl["Transform"])
	}
	c.parameters()
	for name, cond := range asMap(c.tpl["Conditions"]) {
		c.intrinsics("Conditions."+name, cond)
	}
	c.globals()
	if len(asMap(c.tpl["Resources"])) == 0 {
		c.errorf("Resources", "none")
	}
	for id, r := range asMap(c.tpl["Resources"]) {
		c.resource(id, r)
	}
	for name, o := range asMap(c.tpl["Outputs"]) {
		path := "Outputs." + name
		for k := range asMap(o) {
			if !slices.Contains([]string{"Description", "Value", "Export", "Condition"}, k) {
				c.errorf(path, "unknown key %s", k)
			}
		}
		if at(o, "Value") == nil {
			c.errorf(path, "no Value")
		}
		c.condition(path, at(o, "Condition"))
		c.intrinsics(path, o)
	}
}

func (c *specCheck) resourcesOfPrefix(prefix string) []string {
	var ids []string
	for id, r := range asMap(c.tpl["Resources"]) {
		if strings.HasPrefix(str(at(r, "Type")), prefix) {
			ids = append(ids, id)
		}
	}
	return ids
}

func (c *specCheck) parameters() {
	types := []string{"String", "Number", "List<Number>", "CommaDelimitedList", "AWS::SSM::Parameter::Value<String>"}
	keys := []string{"Type", "Default", "Description", "AllowedValues", "AllowedPattern", "MinValue", "MaxValue",
		"MinLength", "MaxLength", "NoEcho", "ConstraintDescription"}
	for name, p := range asMap(c.tpl["Parameters"]) {
		path := "Parameters." + name
		for k := range asMap(p) {
			if !slices.Contains(keys, k) {
				c.errorf(path, "unknown key %s", k)
			}
		}
		typ := str(at(p, "Type"))
		if !slices.Contains(types, typ) && !strings.HasPrefix(typ, "AWS::") {
			c.errorf(path, "Type %q", typ)
		}
		def := at(p, "Default")
		if typ == "Number" && def != nil && !isNumber(def) {
			c.errorf(path, "Default %v is not a number", def)
		}
		if allowed := list(at(p, "AllowedValues")); def != nil && allowed != nil && !slices.ContainsFunc(allowed, func(v any) bool { return fmt.Sprint(v) == fmt.Sprint(def) }) {
			c.errorf(path, "Default %v is not among the AllowedValues", def)
		}
		if n, ok := number(def); ok && typ == "Number" {
			if lo, ok := number(at(p, "MinValue")); ok && n < lo {
				c.errorf(path, "Default %v below MinValue", def)
			}
			if hi, ok := number(at(p, "MaxValue")); ok && n > hi {
				c.errorf(path, "Default %v above MaxValue", def)
			}
		}
	}
}

// globals checks SAM's Globals: each Function key is an AWS::Serverless::Function property.
func (c *specCheck) globals() {
	for section, v := range asMap(c.tpl["Globals"]) {
		typ := map[string]string{"Function": "AWS::Serverless::Function", "Api": "AWS::Serverless::Api",
			"HttpApi": "AWS::Serverless::HttpApi", "SimpleTable": "AWS::Serverless::SimpleTable"}[section]
		def := c.spec.ResourceTypes[typ]
		if def == nil {
			c.errorf("Globals."+section, "not a SAM Globals section")
			continue
		}
		c.properties("Globals."+section, typ, def, v, false)
	}
}

func (c *specCheck) resource(id string, r any) {
	path := "Resources." + id
	attrs := []string{"Type", "Properties", "DependsOn", "Condition", "Metadata", "DeletionPolicy",
		"UpdateReplacePolicy", "UpdatePolicy", "CreationPolicy"}
	for k := range asMap(r) {
		if !slices.Contains(attrs, k) {
			c.errorf(path, "unknown resource attribute %s", k)
		}
	}
	for _, d := range asList(at(r, "DependsOn")) {
		if asMap(c.tpl["Resources"])[str(d)] == nil {
			c.errorf(path, "DependsOn %v: no such resource", d)
		}
	}
	c.condition(path, at(r, "Condition"))
	for _, k := range []string{"DeletionPolicy", "UpdateReplacePolicy"} {
		if v := at(r, k); v != nil && !slices.Contains([]any{"Delete", "Retain", "Snapshot", "RetainExceptOnCreate"}, v) {
			c.errorf(path, "%s %v", k, v)
		}
	}
	typ := str(at(r, "Type"))
	def := c.spec.ResourceTypes[typ]
	if def == nil {
		c.errorf(path, "unknown resource type %q", typ)
		return
	}
	props := at(r, "Properties")
	if props != nil && asMap(props) == nil {
		c.errorf(path+".Properties", "not a mapping")
		return
	}
	c.properties(path+".Properties", typ, def, props, true)
	c.intrinsics(path, r)
}

// properties checks a resource's (or property type's) properties: known names, the required
// ones present (SAM functions may take them from Globals), each value of its type.
func (c *specCheck) properties(path, typ string, def *specDef, v any, required bool) {
	m := asMap(v)
	for name, val := range m {
		p := def.Properties[name]
		if p == nil {
			c.errorf(path, "%s has no property %s", typ, name)
			continue
		}
		c.value(path+"."+name, typeScope(typ), p, val)
	}
	if !required {
		return
	}
	for name, p := range def.Properties {
		if !p.Required || m[name] != nil {
			continue
		}
		if typ == "AWS::Serverless::Function" && at(c.tpl, "Globals", "Function", name) != nil {
			continue
		}
		c.errorf(path, "%s needs property %s", typ, name)
	}
}

// typeScope is the resource type whose property types a name refers to ("AWS::X::Y.Z" -> "AWS::X::Y").
func typeScope(typ string) string {
	if i := strings.Index(typ, "."); i >= 0 {
		return typ[:i]
	}
	return typ
}

// propertyType finds a named property type of a resource type (or the global Tag).
func (c *specCheck) propertyType(scope, name string) (string, *specDef) {
	if d := c.spec.PropertyTypes[scope+"."+name]; d != nil {
		return scope + "." + name, d
	}
	return name, c.spec.PropertyTypes[name]
}

// value checks one property value against its declared type(s).
func (c *specCheck) value(path, scope string, p *specProp, v any) {
	if isIntrinsic(v) {
		return // checked by intrinsics; its result's type is AWS's to check
	}
	var prims, types []string
	if p.PrimitiveType != "" {
		prims = append(prims, p.PrimitiveType)
	}
	prims = append(prims, p.PrimitiveTypes...)
	if p.Type != "" {
		types = append(types, p.Type)
	}
	types = append(types, p.Types...)
	var fails []string
	for _, prim := range prims {
		if primitiveOK(prim, v) {
			return
		}
		fails = append(fails, prim)
	}
	for _, t := range types {
		switch t {
		case "List":
			l, ok := v.([]any)
			if !ok {
				fails = append(fails, "List")
				continue
			}
			for i, item := range l {
				c.item(fmt.Sprintf("%s[%d]", path, i), scope, p, item)
			}
			return
		case "Map":
			m, ok := v.(map[string]any)
			if !ok {
				fails = append(fails, "Map")
				continue
			}
			for k, item := range m {
				c.item(path+"."+k, scope, p, item)
			}
			return
		default:
			if _, ok := v.(map[string]any); !ok {
				fails = append(fails, t)
				continue
			}
			if len(types) == 1 {
				c.object(path, scope, t, v)
				return
			}
			// One of several object types (SAM's event sources, code locations): the first one
			// it passes.
			if errs := c.try(path, scope, t, v); len(errs) == 0 {
				return
			}
			fails = append(fails, t)
		}
	}
	// SAM lists whose items may each be of several types (Policies).
	if len(p.InclusiveItemTypes)+len(p.InclusivePrimitiveItemTypes) > 0 {
		if l, ok := v.([]any); ok {
			for i, item := range l {
				c.item(fmt.Sprintf("%s[%d]", path, i), scope, p, item)
			}
			return
		}
	}
	c.errorf(path, "%s is not a %s", describe(v), strings.Join(fails, " or "))
}

// item checks a list's or map's item against the property's item type(s).
func (c *specCheck) item(path, scope string, p *specProp, v any) {
	prims := slices.Concat(oneOf(p.PrimitiveItemType), p.PrimitiveItemTypes, p.InclusivePrimitiveItemTypes)
	types := slices.Concat(oneOf(p.ItemType), p.ItemTypes, p.InclusiveItemTypes)
	c.value(path, scope, &specProp{PrimitiveTypes: prims, Types: types}, v)
}

func oneOf(s string) []string {
	if s == "" {
		return nil
	}
	return []string{s}
}

// object checks a value of a named property type. An event source's Properties are of the
// type its Type names (SAM: Type HttpApi -> HttpApiEvent).
func (c *specCheck) object(path, scope, name string, v any) {
	full, def := c.propertyType(scope, name)
	if def == nil {
		c.errorf(path, "the specification has no property type %s.%s", scope, name)
		return
	}
	if full == "AWS::Serverless::Function.EventSource" {
		kind := str(at(v, "Type")) + "Event"
		if _, d := c.propertyType(scope, kind); d == nil {
			c.errorf(path+".Type", "unknown SAM event type %v", at(v, "Type"))
		} else {
			c.object(path+".Properties", scope, kind, at(v, "Properties"))
		}
		for k := range asMap(v) {
			if k != "Type" && k != "Properties" {
				c.errorf(path, "event has no key %s", k)
			}
		}
		return
	}
	c.properties(path, full, def, v, true)
}

// try checks v as a value of type name and returns its problems without recording them.
func (c *specCheck) try(path, scope, name string, v any) []string {
	sub := &specCheck{spec: c.spec, tpl: c.tpl}
	sub.object(path, scope, name, v)
	return sub.errs
}

func primitiveOK(prim string, v any) bool {
	switch prim {
	case "String", "Timestamp":
		// CloudFormation takes numbers and booleans where it wants a string.
		switch v.(type) {
		case string, int, float64, bool:
			return true
		}
	case "Integer", "Long":
		switch x := v.(type) {
		case int:
			return true
		case string:
			_, err := strconv.ParseInt(x, 10, 64)
			return err == nil
		}
	case "Double":
		return isNumber(v)
	case "Boolean":
		switch x := v.(type) {
		case bool:
			return true
		case string:
			return x == "true" || x == "false"
		}
	case "Json":
		switch v.(type) {
		case map[string]any, []any, string:
			return true
		}
	}
	return false
}

func isNumber(v any) bool { _, ok := number(v); return ok }

func number(v any) (float64, bool) {
	switch x := v.(type) {
	case int:
		return float64(x), true
	case float64:
		return x, true
	case string:
		f, err := strconv.ParseFloat(x, 64)
		return f, err == nil
	}
	return 0, false
}

func describe(v any) string {
	switch v.(type) {
	case map[string]any:
		return "a mapping"
	case []any:
		return "a list"
	case nil:
		return "null"
	}
	return fmt.Sprintf("%T %v", v, v)
}

func asMap(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

// isIntrinsic says whether v is one intrinsic function: {"Ref": ...} or {"Fn::X": ...}.
func isIntrinsic(v any) bool {
	m, ok := v.(map[string]any)
	if !ok || len(m) != 1 {
		return false
	}
	for k := range m {
		return k == "Ref" || k == "Condition" || strings.HasPrefix(k, "Fn::")
	}
	return false
}

var subVar = regexp.MustCompile(`\$\{([^}!][^}]*)\}`)

// intrinsics walks v and checks that every Ref, GetAtt, Sub variable and condition it uses
// names something that exists (with a GetAtt attribute the resource type has).
func (c *specCheck) intrinsics(path string, v any) {
	switch x := v.(type) {
	case []any:
		for i, e := range x {
			c.intrinsics(fmt.Sprintf("%s[%d]", path, i), e)
		}
	case map[string]any:
		if !isIntrinsic(x) {
			for k, e := range x {
				c.intrinsics(path+"."+k, e)
			}
			return
		}
		for fn, arg := range x {
			switch fn {
			case "Ref":
				c.ref(path, str(arg))
			case "Fn::GetAtt":
				parts := strs(arg)
				if len(parts) != 2 {
					c.errorf(path, "GetAtt %v", arg)
					return
				}
				c.getAtt(path, parts[0], parts[1])
			case "Fn::Sub":
				s := str(arg)
				vars := map[string]any{}
				if l := list(arg); len(l) == 2 {
					s, vars = str(l[0]), asMap(l[1])
					c.intrinsics(path, l[1])
				}
				for _, m := range subVar.FindAllStringSubmatch(s, -1) {
					name := m[1]
					if _, ok := vars[name]; ok {
						continue
					}
					if res, attr, ok := strings.Cut(name, "."); ok && !strings.HasPrefix(name, "AWS::") {
						c.getAtt(path, res, attr)
					} else {
						c.ref(path, name)
					}
				}
			case "Fn::If":
				l := list(arg)
				if len(l) != 3 {
					c.errorf(path, "Fn::If needs [condition, then, else]")
					return
				}
				c.condition(path, l[0])
				c.intrinsics(path, l[1])
				c.intrinsics(path, l[2])
			case "Condition":
				c.condition(path, arg)
			case "Fn::Equals", "Fn::Not", "Fn::And", "Fn::Or", "Fn::Join", "Fn::Select", "Fn::Split",
				"Fn::FindInMap", "Fn::Base64", "Fn::GetAZs", "Fn::ImportValue", "Fn::Cidr", "Fn::Length", "Fn::ToJsonString":
				c.intrinsics(path, arg)
			default:
				c.errorf(path, "unknown intrinsic function %s", fn)
			}
		}
	}
}

func (c *specCheck) ref(path, name string) {
	if slices.Contains(pseudoParameters, name) || at(c.tpl, "Parameters", name) != nil || asMap(c.tpl["Resources"])[name] != nil {
		return
	}
	c.errorf(path, "Ref %s: no such parameter or resource", name)
}

func (c *specCheck) getAtt(path, res, attr string) {
	r := asMap(c.tpl["Resources"])[res]
	if r == nil {
		c.errorf(path, "GetAtt %s.%s: no such resource", res, attr)
		return
	}
	def := c.spec.ResourceTypes[str(at(r, "Type"))]
	if def == nil {
		return // reported on the resource
	}
	if _, ok := def.Attributes[attr]; !ok {
		c.errorf(path, "GetAtt %s.%s: %s has no attribute %s", res, attr, at(r, "Type"), attr)
	}
}

func (c *specCheck) condition(path string, v any) {
	if v == nil {
		return
	}
	if isIntrinsic(v) {
		c.intrinsics(path, v)
		return
	}
	if at(c.tpl, "Conditions", str(v)) == nil {
		c.errorf(path, "condition %v: no such condition", v)
	}
}

func TestTemplateMatchesCloudFormationsResourceSpecification(t *testing.T) {
	spec := loadSpec(t)
	t.Logf("CloudFormation resource specification %s", spec.Version)
	for _, e := range checkTemplate(spec, loadTemplate(t)) {
		t.Error(e)
	}
}

// TestResourceSpecificationCheckFindsMistakes makes sure the check can fail: each mistake, made
// on a copy of the real template, is reported.
func TestResourceSpecificationCheckFindsMistakes(t *testing.T) {
	spec := loadSpec(t)
	for _, c := range []struct {
		name  string
		edit  func(tpl cfn)
		wants string
	}{
		{"misspelt property", func(tpl cfn) {
			asMap(at(tpl, "Resources", "Table", "Properties"))["BillingMod"] = "PAY_PER_REQUEST"
		}, "Resources.Table.Properties: AWS::DynamoDB::Table has no property BillingMod"},
		{"unknown resource type", func(tpl cfn) {
			asMap(tpl.resources()["Table"])["Type"] = "AWS::DynamoDB::Tabel"
		}, `unknown resource type "AWS::DynamoDB::Tabel"`},
		{"missing required property", func(tpl cfn) {
			delete(asMap(at(tpl, "Resources", "Table", "Properties")), "KeySchema")
		}, "AWS::DynamoDB::Table needs property KeySchema"},
		{"wrong type", func(tpl cfn) {
			asMap(at(tpl, "Resources", "ApiAccessLogGroup", "Properties"))["RetentionInDays"] = "a month"
		}, "RetentionInDays: string a month is not a Integer"},
		{"a list where a mapping goes", func(tpl cfn) {
			asMap(at(tpl, "Resources", "Table", "Properties"))["SSESpecification"] = []any{true}
		}, "SSESpecification: a list is not a SSESpecification"},
		{"nested property type", func(tpl cfn) {
			asMap(at(tpl, "Resources", "Table", "Properties", "TimeToLiveSpecification"))["Attribute"] = "ttl"
		}, "AWS::DynamoDB::Table.TimeToLiveSpecification has no property Attribute"},
		{"SAM event property", func(tpl cfn) {
			asMap(at(tpl, "Resources", "MetaFunction", "Properties", "Events", "Health", "Properties"))["Verb"] = "GET"
		}, "AWS::Serverless::Function.HttpApiEvent has no property Verb"},
		{"SAM Globals", func(tpl cfn) {
			asMap(at(tpl, "Globals", "Function"))["Memory"] = 256
		}, "Globals.Function: AWS::Serverless::Function has no property Memory"},
		{"dangling Ref", func(tpl cfn) {
			asMap(at(tpl, "Resources", "ApiAccessLogGroup", "Properties"))["RetentionInDays"] = ref("LogRetention")
		}, "Ref LogRetention: no such parameter or resource"},
		{"unknown GetAtt attribute", func(tpl cfn) {
			asMap(at(tpl, "Outputs", "TableName"))["Value"] = getAtt("Table", "Name")
		}, "GetAtt Table.Name: AWS::DynamoDB::Table has no attribute Name"},
		{"dangling Sub variable", func(tpl cfn) {
			asMap(at(tpl, "Outputs", "ApiUrl"))["Value"] = map[string]any{"Fn::Sub": "https://${HttpAPI}.example"}
		}, "Ref HttpAPI: no such parameter or resource"},
		{"unknown condition", func(tpl cfn) {
			asMap(tpl.resources()["AlarmTopic"])["Condition"] = "CreateTopic"
		}, "condition CreateTopic: no such condition"},
		{"parameter default outside its values", func(tpl cfn) {
			asMap(at(tpl, "Parameters", "LogRetentionDays"))["Default"] = 31
		}, "Default 31 is not among the AllowedValues"},
	} {
		t.Run(c.name, func(t *testing.T) {
			tpl := loadTemplate(t)
			c.edit(tpl)
			errs := checkTemplate(spec, tpl)
			if !slices.ContainsFunc(errs, func(e string) bool { return strings.Contains(e, c.wants) }) {
				t.Errorf("want a problem containing %q, got %q", c.wants, errs)
			}
		})
	}
}
