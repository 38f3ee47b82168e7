/// Which clock a query measures its time on, so that the queries of one store on one clock share one sweeper.
///
/// A clock that is an object (a ``ManualClock``) is one clock per instance; a clock that is a value
/// (`ContinuousClock`, `SuspendingClock`) is one clock per type.
struct QueryClockKey: Hashable, Sendable {
  private let id: ObjectIdentifier

  init(_ clock: any Clock<Duration>) {
    if type(of: clock) is AnyClass {
      id = ObjectIdentifier(clock as AnyObject)
    } else {
      id = ObjectIdentifier(type(of: clock))
    }
  }
}
