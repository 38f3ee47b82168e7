/// When a key's ``SharedKey/save(_:context:)`` runs after a change.
///
/// A key says it with ``SharedKey/saveSchedule``:
///
/// ```swift
/// var saveSchedule: SharedSaveSchedule { .debounced(.seconds(1)) }
/// ```
public struct SharedSaveSchedule: Sendable {
  /// How long a change waits before it is saved; changes made during the wait are saved with it, in one save of the
  /// newest value.
  public let delay: Duration
  /// The clock that measures ``delay``.
  public let clock: any Clock<Duration>

  /// Saves right after each change (changes made while a save runs are saved together afterwards).
  public static var immediate: SharedSaveSchedule {
    SharedSaveSchedule(delay: .zero, clock: ContinuousClock())
  }

  /// Saves at most once per `delay`, with the newest value.
  ///
  /// ```swift
  /// var saveSchedule: SharedSaveSchedule { .debounced(.milliseconds(250), clock: clock) }
  /// ```
  ///
  /// A change made while nothing waits or saves starts a wait of `delay`; at its end, the newest value is saved,
  /// with every change made during the wait. Later changes do not restart the wait, so a steady stream of changes
  /// is saved once per `delay` (plus the time a save takes), never put off until the changes stop. A change made
  /// while a save runs starts the next wait when that save returns. ``Shared/save()`` ends a wait at once.
  ///
  /// > Note: Despite its name, this schedule does not wait for changes to pause, as a debounce would: it saves on a
  /// > fixed rhythm while changes keep coming, as a throttle does.
  ///
  /// - Parameters:
  ///   - delay: How long a change waits before it is saved.
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
