/// Work a record decided on under the store's lock, to perform after it.
struct QueryRecordEffect {
  static var none: Self { Self(perform: nil) }

  let perform: (() -> Void)?

  /// Performs the effect; call after the lock.
  func callAsFunction() { perform?() }
}
