import Synchronization

/// The instrument attached to a registry, if any: the engines check ``isAttached`` (one relaxed atomic load) before
/// doing anything for it.
final class SharedInstruments: Sendable {
  private let attached = Atomic<Bool>(false)
  private let instrument = Lock<(any SharedInstrument)?>(nil)

  init() {}

  /// Whether an instrument is attached.
  var isAttached: Bool { attached.load(ordering: .relaxed) }

  /// The attached instrument; `nil` (after one atomic load) while none is.
  var current: (any SharedInstrument)? {
    guard isAttached else { return nil }
    return instrument.withLock { $0 }
  }

  /// Attaches `new` in place of the instrument attached before, which is returned (and released by the caller,
  /// after the lock).
  func replace(with new: (any SharedInstrument)?) -> (any SharedInstrument)? {
    instrument.withLock { current in
      let previous = current
      current = new
      attached.store(new != nil, ordering: .relaxed)
      return previous
    }
  }

  /// Begins measuring `work` if an instrument is attached.
  func begin(_ work: @autoclosure () -> InstrumentedWork) -> (any WorkMeasurement)? {
    current?.begin(work())
  }

  /// Records `event` if an instrument is attached.
  func record(_ event: @autoclosure () -> InstrumentedEvent) {
    current?.record(event())
  }
}
