package openapi_test

import (
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"testing"

	"github.com/sakemcp/sake-go/sake/openapi"
	"github.com/sakemcp/sake-go/sake/saketest"
)

func readSpec(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func toolNames(t *testing.T, c *saketest.Client) []string {
	t.Helper()
	tools, err := c.ListTools()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools {
		names = append(names, tl.Name)
	}
	slices.Sort(names)
	return names
}

func TestPetstore30EveryOperationIsATool(t *testing.T) {
	srv, err := openapi.New(readSpec(t, "petstore-3.0.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	saketest.BothEras(t, func(t *testing.T, opts ...saketest.Option) {
		c := saketest.Connect(t, srv, opts...)
		want := []string{"createPets", "listPets", "showPetById"}
		if got := toolNames(t, c); !slices.Equal(got, want) {
			t.Fatalf("tools = %v, want %v", got, want)
		}
		tools, _ := c.ListTools()
		for _, tl := range tools {
			var in struct {
				Properties map[string]json.RawMessage `json:"properties"`
				Required   []string                   `json:"required"`
			}
			if err := json.Unmarshal(tl.InputSchema, &in); err != nil {
				t.Fatal(err)
			}
			switch tl.Name {
			case "listPets":
				if _, ok := in.Properties["limit"]; !ok || len(in.Required) != 0 {
					t.Errorf("listPets input = %s", tl.InputSchema)
				}
				// The response is an array: the output schema wraps it.
				if !regexp.MustCompile(`"result"`).Match(tl.OutputSchema) {
					t.Errorf("listPets output = %s", tl.OutputSchema)
				}
			case "createPets":
				// The body's properties are the arguments.
				if !slices.Equal(in.Required, []string{"id", "name"}) || in.Properties["tag"] == nil {
					t.Errorf("createPets input = %s", tl.InputSchema)
				}
				if len(tl.OutputSchema) != 0 {
					t.Errorf("createPets declares no JSON response, has output %s", tl.OutputSchema)
				}
			case "showPetById":
				if !slices.Equal(in.Required, []string{"petId"}) {
					t.Errorf("showPetById input = %s", tl.InputSchema)
				}
				// The Pet schema the response refers to is the output
				// schema's top level.
				var out struct {
					Properties map[string]any `json:"properties"`
					Required   []string       `json:"required"`
				}
				if err := json.Unmarshal(tl.OutputSchema, &out); err != nil || out.Properties["name"] == nil || !slices.Equal(out.Required, []string{"id", "name"}) {
					t.Errorf("showPetById output = %s", tl.OutputSchema)
				}
			}
		}
	})
}

func TestPetstore31RouteMaps(t *testing.T) {
	srv, err := openapi.New(readSpec(t, "petstore-3.1.json"), openapi.BaseURL("http://petstore.test/api/v3"),
		openapi.Routes(
			openapi.RouteMap{Tags: []string{"user"}, Methods: []string{"DELETE"}, Kind: openapi.Exclude},
			openapi.RouteMap{Methods: []string{"GET"}, Pattern: regexp.MustCompile(`\{`), Kind: openapi.ResourceTemplate},
			openapi.RouteMap{Methods: []string{"GET"}, Pattern: regexp.MustCompile(`^/store/inventory$`), Kind: openapi.Resource, ComponentTags: []string{"inventory"}},
		))
	if err != nil {
		t.Fatal(err)
	}
	saketest.BothEras(t, func(t *testing.T, opts ...saketest.Option) {
		c := saketest.Connect(t, srv, opts...)
		wantTools := []string{"addPet", "createUser", "createUsersWithListInput", "deleteOrder", "deletePet",
			"findPetsByStatus", "findPetsByTags", "loginUser", "logoutUser", "placeOrder", "updatePet",
			"updatePetWithForm", "updateUser", "uploadFile"}
		if got := toolNames(t, c); !slices.Equal(got, wantTools) {
			t.Errorf("tools = %v\nwant %v", got, wantTools)
		}
		res, err := c.ListResources()
		if err != nil {
			t.Fatal(err)
		}
		if len(res) != 1 || res[0].URI != "api://getInventory" {
			t.Errorf("resources = %+v", res)
		}
		tmpl, err := c.ListResourceTemplates()
		if err != nil {
			t.Fatal(err)
		}
		var uris []string
		for _, r := range tmpl {
			uris = append(uris, r.URITemplate)
		}
		slices.Sort(uris)
		want := []string{"api://getOrderById/{orderId}", "api://getPetById/{petId}", "api://getUserByName/{username}"}
		if !slices.Equal(uris, want) {
			t.Errorf("templates = %v, want %v", uris, want)
		}
	})
}

func TestDiscourseDocument(t *testing.T) {
	spec := readSpec(t, "discourse.yaml")
	srv, err := openapi.New(spec)
	if err != nil {
		t.Fatal(err)
	}
	c := saketest.Connect(t, srv)
	tools, err := c.ListTools()
	if err != nil {
		t.Fatal(err)
	}
	// The document has 93 operations (counted outside Go).
	if len(tools) != 93 {
		t.Fatalf("%d tools, want one per operation of the document (93)", len(tools))
	}
	for _, tl := range tools {
		var in struct {
			Type       string                    `json:"type"`
			Properties map[string]map[string]any `json:"properties"`
			Required   []string                  `json:"required"`
		}
		if err := json.Unmarshal(tl.InputSchema, &in); err != nil || in.Type != "object" {
			t.Errorf("%s: input schema %s", tl.Name, tl.InputSchema)
		}
		if tl.Name == "getTopic" {
			// Two header parameters and a path parameter; a 200 with
			// a JSON object as output.
			if !slices.Equal(in.Required, []string{"id", "Api-Key", "Api-Username"}) {
				t.Errorf("getTopic requires %v", in.Required)
			}
			var out struct {
				Properties map[string]any `json:"properties"`
			}
			if err := json.Unmarshal(tl.OutputSchema, &out); err != nil || out.Properties["archetype"] == nil {
				t.Errorf("getTopic output = %.200s", tl.OutputSchema)
			}
		}
	}
}
