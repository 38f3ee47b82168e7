/// What a save does when another instance wrote the value since this instance last read it.
///
/// ```swift
/// func join(database: SharedPostgresDatabase, user: String) {
///   let union: PostgresConflictPolicy<Set<String>> = .merge { local, remote in local.union(remote) }
///   @Shared(.postgres("online", in: database, conflicts: union)) var online = Set<String>()
///   $online.withLock { _ = $0.insert(user) }
/// }
/// ```
public struct PostgresConflictPolicy<Value: Sendable>: Sendable {
  let merge: (@Sendable (_ local: Value, _ remote: Value) -> Value)?
  let isEqual: @Sendable (Value, Value) -> Bool

  /// The save replaces the row: the newest version wins, and the other instances converge to it within one
  /// notification. A change of this instance not saved yet when a newer one arrives is dropped for it.
  public static var lastWriterWins: Self { Self(merge: nil, isEqual: { _, _ in false }) }

  /// The save combines the value in memory with the newer one in the row and writes the result, checked against the
  /// row's version (read, merge, `UPDATE … WHERE version = …`, again when another instance wrote first: no
  /// transaction, no row lock); a newer value heard from another instance is combined with the value in memory the
  /// same way, and written back, when memory holds a change of this instance.
  ///
  /// The function is called only for a change of this instance: when memory differs (by `==`) from the value it last
  /// agreed on with the row, and the row holds a newer version. Memory that holds no change of its own takes a newer
  /// version as it is, and nothing is written, so instances converge on the row's newest version and never write in a
  /// loop, whatever the function returns. No change is lost or counted twice when the function keeps what each side
  /// adds (a union, a maximum, a merge by identifier) and adds nothing when merged again (a change may be merged more
  /// than once): `merge(local, merge(local, remote)) == merge(local, remote)`. It need not be commutative. See "What
  /// a merge function must satisfy" in the "Sharing across machines" article.
  ///
  /// It combines values, not changes: a counter two instances increment at once loses an increment (a sum would
  /// count values twice); use ``PostgresKey/update(ifMissing:isolation:_:)`` for such changes. Keep it quick: it is
  /// called under no mutex of this process and not during a database statement, but a newer value heard from another
  /// instance is combined during the database's landing turn (the one at a time in which stored values reach
  /// memory), with the write of the combination following in the same turn. The turn is a wait in order, not a
  /// mutex, so nothing deadlocks, but while it is held no change of any key of the database lands and no load hands
  /// its value over. A load compares the value it read with memory using the value's `==` in the same turn.
  ///
  /// ```swift
  /// .merge { local, remote in local.union(remote) }
  /// ```
  ///
  /// - Parameter merge: Combines the value in memory (`local`) with the stored one (`remote`).
  /// - Returns: The policy.
  public static func merge(
    _ merge: @escaping @Sendable (_ local: Value, _ remote: Value) -> Value
  ) -> Self where Value: Equatable {
    Self(merge: merge, isEqual: { $0 == $1 })
  }
}
