package predict

// Bounds of a forecast. A forecast simulates every object of the fleet and draws every queue order in
// memory, so both stay within what it computes in seconds: ten million objects, and ten thousand orders
// (the default of 400 already puts a p95 within a few percent).
const (
	MaxSize   = 10_000_000
	MaxOrders = 10_000
)
