/// The meta a mutation's run was started with, as its history keeps it for an inspector: one reference to the
/// options' own meta (none when it is empty), described only when a snapshot is taken, after every lock.
///
/// Two are equal when they hold one meta (copies of it): its values cannot be compared. A history that holds the
/// same runs stays equal to itself; a run started again with a meta made anew differs, as its number does anyway.
struct RecordedMeta: Sendable, Equatable {
  let meta: OperationMeta

  static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.meta.isIdentical(to: rhs.meta)
  }
}
