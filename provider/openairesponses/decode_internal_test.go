package openairesponses

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// arrayRequest must have request's fields, in order, with the same tags:
// a field added to one and not the other would be lost on one path.
func TestArrayRequestMirrorsRequest(t *testing.T) {
	a, r := reflect.TypeOf(arrayRequest{}), reflect.TypeOf(request{})
	if a.NumField() != r.NumField() {
		t.Fatalf("arrayRequest has %d fields, request %d", a.NumField(), r.NumField())
	}
	for i := 0; i < a.NumField(); i++ {
		fa, fr := a.Field(i), r.Field(i)
		if fa.Name != fr.Name || fa.Tag != fr.Tag || (fa.Type != fr.Type && !fa.Type.ConvertibleTo(fr.Type)) {
			t.Errorf("field %d: arrayRequest %s %s %q, request %s %s %q", i, fa.Name, fa.Type, fa.Tag, fr.Name, fr.Type, fr.Tag)
		}
	}
}

// decodeRequest reads every body as the request type does.
func TestDecodeRequestOnePass(t *testing.T) {
	for _, body := range []string{
		`{"model":"m","input":[{"role":"user","content":"hi"},{"type":"function_call","call_id":"c","name":"t","arguments":"{}"}],"stream":true}`,
		`{"model":"m","input":"hi"}`,
		`{"model":"m","input":null}`,
		`{"model":"m"}`,
		`{"model":"m","input":[]}`,
		`{"model":"m","input":{"role":"user"}}`,
		`{"model":"m","input":[{"role":1}]}`,
		`{"model":3,"input":[]}`,
		`[]`,
		`{"input":[{"type":"message","content":[{"type":"input_text","text":"x"}]}],"instructions":"be brief","tools":[{"type":"function","name":"t"}]}`,
	} {
		var want request
		wantErr := json.Unmarshal([]byte(body), &want)
		got, err := decodeRequest([]byte(body))
		if (err == nil) != (wantErr == nil) || (err != nil && err.Error() != wantErr.Error()) {
			t.Errorf("%s: error %v, want %v", body, err, wantErr)
			continue
		}
		if diff := cmp.Diff(want, got, cmp.AllowUnexported(request{}, item{}, tool{})); diff != "" {
			t.Errorf("%s (-request +decodeRequest):\n%s", body, diff)
		}
	}
}
