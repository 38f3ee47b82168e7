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

  /// When a change was heard: where the value was, and what it held.
  private struct Heard: Sendable {
    let read: SharedStoreRead
    let value: Value
  }

  func changeHeard() -> (any Sendable)? {
    guard let read = context.storeReadStarted(), let value = context.currentValue else { return nil }
    return Heard(read: read, value: value)
  }

  /// Last writer wins: the stored value replaces memory, unless the program changed (or saved) the value since the
  /// change was heard (`heard`, taken then): memory keeps that change, which is saved over the stored version, even
  /// when its save had not started when the stored value arrived.
  ///
  /// Merge: when memory holds no change of this instance that the row lacks (it equals the value it last agreed on
  /// with the row), the stored value replaces it as it is, without calling the merge function and without writing:
  /// the stored version already holds every change written before it, and an instance that wrote a merge of
  /// another instance's change with its own older value would make that instance answer in turn, forever, with a
  /// function that is not commutative. When memory holds such a change, memory is combined with the stored value
  /// and the combination is written back (merged again with anything newer in the row) before it replaces memory,
  /// so the change is not lost.
  ///
  /// Under merge, the value is applied only if the program did not change (or save) the value since memory was
  /// read for it (`update(_:readAt:)`); otherwise memory is looked at again, so a change made while a merge is
  /// computed or written is not dropped.
  ///
  /// Says whether memory took the stored value, or a combination of it (the version is then a base of merges), and
  /// whether the JSON was of the value's type.
  @discardableResult
  func receive(_ json: Data, heard: (any Sendable)?) async -> ReceiveOutcome {
    let remote: Value
    do {
      remote = try key.decodeStored(json)
    } catch {
      context.reportLoadError(error)
      return .undecodable
    }
    return await take(remote, heard: heard) ? .taken : .kept
  }

  private func take(_ remote: Value, heard: (any Sendable)?) async -> Bool {
    guard let merge = key.conflicts.merge else {
      guard let heard = heard as? Heard else { return false }
      return await replace(with: remote, heard: heard)
    }
    // What the row holds, as far as this instance knows.
    var stored = remote
    while let read = context.storeReadStarted(), let local = context.currentValue {
      guard key.holdsChangeOfItsOwn(local) else {
        // Nothing of this instance to add: the stored value is memory's next value, and nothing is written.
        if context.update(stored, readAt: read) { return true }
        // The program changed or saved the value meanwhile: look at memory again.
        await Task.yield()
        continue
      }
      let merged = merge(local, stored)
      if key.conflicts.isEqual(merged, stored) {
        // The row holds memory's change already: a failed save of it is answered.
        if context.updateAfterSaving(stored, readAt: read) { return true }
      } else {
        do {
          let json = try PostgresKey<Value>.encode(merged, key: key.name)
          var applied = false
          let key = self.key
          let decodes: @Sendable (Data) -> Bool = { key.decodes($0) }
          try await key.database.core.write(
            key.name, json: json, merge: key.merger(local: merged), decodes: decodes
          ) { written in
            stored = (try? key.decodeStored(written)) ?? merged
            // Memory's change was written with the row's.
            applied = context.updateAfterSaving(stored, readAt: read)
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

  /// Last writer wins: `remote` replaces memory unless the program changed the value since it was `heard`.
  ///
  /// The framework also refuses a value read while one of its saves runs (this instance's own save may be closing
  /// after its write returned, and it heard the change during the write). When memory still holds what it held when
  /// the change was heard (compared as JSON: a change to an equal value loses nothing), the program made no change
  /// since, and the value replaces memory as the store's news (the framework saves it again after its save).
  private func replace(with remote: Value, heard: Heard) async -> Bool {
    if context.update(remote, readAt: heard.read) { return true }
    guard let before = try? PostgresKey<Value>.encode(heard.value, key: key.name),
      let read = context.storeReadStarted(), let current = context.currentValue,
      (try? PostgresKey<Value>.encode(current, key: key.name)) == before
    else { return false }
    // Taken before memory was compared: a change of the program since makes the update refuse.
    if context.update(remote, readAt: read) { return true }
    // Refused only for the framework's running save: a change made in the instant since the comparison is the
    // one window left (see the README's Known gaps).
    guard let now = context.currentValue, (try? PostgresKey<Value>.encode(now, key: key.name)) == before else {
      return false
    }
    context.update(remote)
    return true
  }

  func reportLoadError(_ error: (any Error)?) {
    context.reportLoadError(error)
  }

  var isAlive: Bool { context.currentValue != nil }

  func programWrote(_ json: Data) {
    guard let read = context.storeReadStarted(), let value = context.currentValue,
      (try? PostgresKey<Value>.encode(value, key: key.name)) == json
    else { return }
    _ = context.updateAfterSaving(value, readAt: read)
  }

  func differs(from agreed: Data?) -> Bool {
    guard let value = context.currentValue else { return false }
    return (try? PostgresKey<Value>.encode(value, key: key.name)) != agreed
  }

  func writeIfChanged(since agreed: Data?) async throws {
    guard let read = context.storeReadStarted(), let value = context.currentValue else { return }
    let json = try PostgresKey<Value>.encode(value, key: key.name)
    guard json != agreed else { return }
    let stored = try await key.write(json, local: value, context: context, readAt: read)
    _ = context.updateAfterSaving(stored, readAt: read)
  }

  /// Writes memory again after a failed save. The result reaches memory only if the program did not change the
  /// value during the write: a change made meanwhile is saved as usual, combined with the row under merge.
  func saveAgain() async {
    guard let read = context.storeReadStarted(), let value = context.currentValue,
      let json = try? PostgresKey<Value>.encode(value, key: key.name)
    else { return }
    if let stored = try? await key.write(json, local: value, context: context, readAt: read) {
      // Memory and row agree again, with the program's change written: clears the failed save's error.
      _ = context.updateAfterSaving(stored, readAt: read)
    }
  }
}
