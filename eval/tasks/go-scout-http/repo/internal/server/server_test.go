package server

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestHealth(t *testing.T) {
	rec := httptest.NewRecorder()
	New().Routes().ServeHTTP(rec, httptest.NewRequest("GET", "/health", nil))
	if rec.Code != http.StatusOK || rec.Body.String() != "ok\n" {
		t.Fatalf("GET /health = %d %q", rec.Code, rec.Body.String())
	}
}

func TestAddAndList(t *testing.T) {
	h := New().Routes()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("POST", "/notes", strings.NewReader("buy milk")))
	if rec.Code != http.StatusCreated {
		t.Fatalf("POST /notes = %d", rec.Code)
	}
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/notes", nil))
	if !strings.Contains(rec.Body.String(), "buy milk") {
		t.Fatalf("GET /notes = %q", rec.Body.String())
	}
}
