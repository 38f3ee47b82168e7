import Synchronization

/// A seeded source of randomness (SplitMix64), so a demo run with the same `--seed` behaves the same way.
final class SeededRandom: Sendable {
  private let state: Mutex<UInt64>

  init(seed: UInt64) {
    state = Mutex(seed)
  }

  /// The next number in `0..<1`.
  func nextUnit() -> Double {
    let value = state.withLock { state -> UInt64 in
      state &+= 0x9E37_79B9_7F4A_7C15
      var mixed = state
      mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
      mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
      return mixed ^ (mixed >> 31)
    }
    return Double(value >> 11) / Double(1 << 53)
  }

  /// A whole number in `range`.
  func next(in range: ClosedRange<Int>) -> Int {
    range.lowerBound + Int(nextUnit() * Double(range.count))
  }
}
