import Dispatch

/// Nanoseconds from a monotonic clock.
@inline(__always)
func now() -> UInt64 {
  DispatchTime.now().uptimeNanoseconds
}

/// Keeps the optimizer from discarding a computed value.
@inline(never)
func blackHole<T>(_ value: T) {
  withExtendedLifetime(value) {}
}
