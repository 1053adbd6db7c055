package calendar_test

import (
	"context"
	"testing"
	"time"

	"github.com/calgraph/calgraph/internal/calendar"
)

// TestBudgetReservations: reads under way hold what they reserved, so what
// comes back never exceeds the budget; a read waits for reservations to
// settle, and fails only when nothing is left and nothing is under way.
func TestBudgetReservations(t *testing.T) {
	b := calendar.NewBudget(100, 1000)
	ctx := context.Background()

	n1, settle1, err := b.Reserve(ctx, 60)
	if n1 != 60 || err != nil {
		t.Fatalf("first reservation: got %d, %v, want 60", n1, err)
	}
	n2, settle2, err := b.Reserve(ctx, 60)
	if n2 != 40 || err != nil {
		t.Fatalf("second reservation: got %d, %v, want the 40 left", n2, err)
	}
	got := make(chan int)
	go func() {
		n, settle, err := b.Reserve(ctx, 60)
		if err == nil {
			settle(0)
		}
		got <- n
	}()
	select {
	case n := <-got:
		t.Fatalf("a third read got %d while the budget was reserved, want it to wait", n)
	case <-time.After(50 * time.Millisecond):
	}
	settle1(10) // 50 of its 60 come back
	if n := <-got; n != 50 {
		t.Fatalf("after 50 were freed: third read got %d, want 50", n)
	}
	settle2(40)
	if _, _, err := b.Reserve(ctx, 1); err != nil {
		t.Fatalf("with 50 read of 100: %v", err)
	}
	if b.ChargeReturned(50, 999) != nil || b.Exceeded() {
		t.Fatal("50 entries and 999 bytes returned: over a budget of 100 and 1000")
	}
	if err := b.ChargeReturned(1, 2); calendar.ErrorCode(err) != calendar.CodeTooLarge || !b.Exceeded() {
		t.Fatalf("1,001 bytes returned: got %v, want CodeTooLarge", err)
	}
	if _, _, err := b.Reserve(ctx, 1); calendar.ErrorCode(err) != calendar.CodeTooLarge {
		t.Fatalf("a read after the budget was exceeded: got %v, want CodeTooLarge", err)
	}
}

// TestBudgetSpent: a read that finds the budget spent, with nothing under
// way, fails at once; a request without a budget (nil) is not bounded.
func TestBudgetSpent(t *testing.T) {
	ctx := context.Background()
	b := calendar.NewBudget(10, 1000)
	_, settle, _ := b.Reserve(ctx, 10)
	settle(10)
	if _, _, err := b.Reserve(ctx, 5); calendar.ErrorCode(err) != calendar.CodeTooLarge {
		t.Fatalf("with all 10 read: got %v, want CodeTooLarge", err)
	}
	if n, _, err := (*calendar.Budget)(nil).Reserve(ctx, 5); n != 0 || err != nil {
		t.Fatalf("without a budget: got %d, %v, want 0 (no bound)", n, err)
	}
}
