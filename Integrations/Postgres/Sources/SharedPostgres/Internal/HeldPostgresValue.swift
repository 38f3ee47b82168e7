import Foundation
import SharedState

/// A value of a ``PostgresKey`` held in this process: how another instance's change reaches it.
final class HeldPostgresValue<Value: Codable & Sendable>: HeldValue {
  let key: PostgresKey<Value>
  let context: SharedKeyContext<Value>

  init(key: PostgresKey<Value>, context: SharedKeyContext<Value>) {
    self.key = key
    self.context = context
  }

  /// Last writer wins: the stored value replaces memory. Merge: memory is combined with it, and when memory adds
  /// something, the combination is written back (merged again with anything newer in the row) before it replaces
  /// memory, so no change of this instance that was not saved yet is lost.
  func receive(_ json: Data) async {
    let remote: Value
    do {
      remote = try PostgresKey<Value>.decode(json, key: key.name)
    } catch {
      context.reportLoadError(error)
      return
    }
    guard let merge = key.conflicts.merge, let local = context.currentValue else {
      context.update(remote)
      return
    }
    let merged = merge(local, remote)
    if key.conflicts.isEqual(merged, remote) {
      context.update(remote)
      return
    }
    do {
      let json = try PostgresKey<Value>.encode(merged, key: key.name)
      let stored = try await key.database.core.write(
        key.name, json: json, merge: PostgresKey<Value>.merger(key.conflicts, local: merged, key: key.name)
      ) { _ in true }
      context.update((try? PostgresKey<Value>.decode(stored, key: key.name)) ?? merged)
    } catch {
      // Kept in memory; saved again once the server is back.
      context.update(merged)
    }
  }

  func reportLoadError(_ error: (any Error)?) {
    context.reportLoadError(error)
  }

  func saveAgain() async {
    guard let value = context.currentValue, let json = try? PostgresKey<Value>.encode(value, key: key.name) else {
      return
    }
    if let stored = try? await key.write(json, local: value, context: context) {
      // Memory and row agree again: clears the failed save's error.
      context.update(stored)
    }
  }
}
