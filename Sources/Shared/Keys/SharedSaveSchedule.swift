/// When a key's ``SharedKey/save(_:context:)`` runs after a change.
///
/// A key says it with ``SharedKey/saveSchedule``:
///
/// ```swift
/// var saveSchedule: SharedSaveSchedule { .debounced(.seconds(1)) }
/// ```
public struct SharedSaveSchedule: Sendable {
  /// How long to wait after a change before saving; more changes in that time are saved together.
  public let delay: Duration
  /// The clock that measures ``delay``.
  public let clock: any Clock<Duration>

  /// Saves right after each change (changes made while a save runs are saved together afterwards).
  public static var immediate: SharedSaveSchedule {
    SharedSaveSchedule(delay: .zero, clock: ContinuousClock())
  }

  /// Saves at most once per `delay`: a change is saved no later than `delay` after it was made.
  ///
  /// ```swift
  /// var saveSchedule: SharedSaveSchedule { .debounced(.milliseconds(250), clock: clock) }
  /// ```
  ///
  /// - Parameters:
  ///   - delay: The quiet time between a change and its save.
  ///   - clock: The clock that measures it; pass a ``ManualClock`` in tests.
  /// - Returns: The schedule.
  public static func debounced(
    _ delay: Duration,
    clock: any Clock<Duration> = ContinuousClock()
  ) -> SharedSaveSchedule {
    precondition(delay >= .zero, "A save delay cannot be negative: \(delay)")
    return SharedSaveSchedule(delay: delay, clock: clock)
  }
}
