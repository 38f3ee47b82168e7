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
  ///
  /// Under merge, the combination is applied only if the program did not change (or save) the value since memory
  /// was read for it (`update(_:readAt:)`); otherwise it is combined again with the newer memory, so a change made
  /// while a merge is computed or written is not dropped.
  ///
  /// Returns whether memory took the stored value, or a combination of it: the version is then a base of merges.
  @discardableResult
  func receive(_ json: Data) async -> Bool {
    let remote: Value
    do {
      remote = try PostgresKey<Value>.decode(json, key: key.name)
    } catch {
      context.reportLoadError(error)
      return false
    }
    guard let merge = key.conflicts.merge else {
      context.update(remote)
      return true
    }
    // What the row holds, as far as this instance knows.
    var stored = remote
    while let read = context.storeReadStarted(), let local = context.currentValue {
      let merged = merge(local, stored)
      if key.conflicts.isEqual(merged, stored) {
        if context.update(stored, readAt: read) { return true }
      } else {
        do {
          let json = try PostgresKey<Value>.encode(merged, key: key.name)
          var applied = false
          try await key.database.core.write(
            key.name, json: json, merge: PostgresKey<Value>.merger(key.conflicts, local: merged, key: key.name)
          ) { written in
            stored = (try? PostgresKey<Value>.decode(written, key: key.name)) ?? merged
            applied = context.update(stored, readAt: read)
            return applied
          }
          if applied { return true }
        } catch {
          // Kept in memory and saved again once the server is back; when the program changed the value meanwhile,
          // memory does not hold this version, and that save combines the program's change with the row.
          return context.update(merged, readAt: read)
        }
      }
      // The program changed or saved the value meanwhile: combine again with what memory holds now.
      await Task.yield()
    }
    return false
  }

  func reportLoadError(_ error: (any Error)?) {
    context.reportLoadError(error)
  }

  /// Writes memory again after a failed save. The result reaches memory only if the program did not change the
  /// value during the write: a change made meanwhile is saved as usual, combined with the row under merge.
  func saveAgain() async {
    guard let read = context.storeReadStarted(), let value = context.currentValue,
      let json = try? PostgresKey<Value>.encode(value, key: key.name)
    else { return }
    if let stored = try? await key.write(json, local: value, context: context, readAt: read) {
      // Memory and row agree again: clears the failed save's error.
      _ = context.update(stored, readAt: read)
    }
  }
}
