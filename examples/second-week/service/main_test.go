package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// get asks the service for q with the key given, and returns the status and
// the body.
func get(t *testing.T, service *httptest.Server, key, q string) (int, string) {
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, service.URL+"/lookup?q="+q, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+key)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = res.Body.Close() }()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res.StatusCode, string(body)
}

// TestServiceAnswers: a lookup with the service's key gets every piece of
// the answer, in order, as one text.
func TestServiceAnswers(t *testing.T) {
	service := httptest.NewServer(handler("sk-test", 0))
	defer service.Close()
	status, body := get(t, service, "sk-test", "strawberry")
	if want := strings.Join(answer("strawberry"), ""); status != http.StatusOK || body != want {
		t.Fatalf("got %d %q, want 200 %q", status, body, want)
	}
}

// TestServiceRefusesOtherKeys: any other key gets 401, and no answer.
func TestServiceRefusesOtherKeys(t *testing.T) {
	service := httptest.NewServer(handler("sk-test", 0))
	defer service.Close()
	for _, key := range []string{"", "sk-other", "sk-test2"} {
		if status, body := get(t, service, key, "strawberry"); status != http.StatusUnauthorized || strings.Contains(body, "strawberry") {
			t.Errorf("key %q: got %d %q, want 401 and no answer", key, status, body)
		}
	}
}

// TestServiceStopsWhenCut: each piece goes out as it is written (flushed);
// a request cut (the host cancelled the call, and lookup's request with
// it) gets no more pieces, and its handler returns
// at once rather than after its pauses. In a bubble of virtual time, the
// handler's pause would be durably blocked, and synctest.Wait would return
// with it unfinished.
func TestServiceStopsWhenCut(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		req := httptest.NewRequestWithContext(ctx, http.MethodGet, "/lookup?q=strawberry", nil)
		req.Header.Set("Authorization", "Bearer sk-test")
		w := httptest.NewRecorder()
		done := make(chan struct{})
		go func() {
			handler("sk-test", time.Hour).ServeHTTP(w, req)
			close(done)
		}()
		synctest.Wait()
		select {
		case <-done:
		default:
			t.Fatal("the handler goes on with a request cut")
		}
		if got, first := w.Body.String(), answer("strawberry")[0]; got != first {
			t.Fatalf("a request cut got %q, want only the first piece %q", got, first)
		}
		if !w.Flushed {
			t.Fatal("the first piece was not flushed: lookup would read the answer only whole, with no progress before")
		}
	})
}
