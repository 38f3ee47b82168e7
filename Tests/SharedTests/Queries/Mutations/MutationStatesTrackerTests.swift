import Dispatch
import Foundation
import TestSupport
import Testing

@testable import SharedState

/// The readers of mutation states: their order of writes when runs start and end while one is listed, and their
/// release.
@Suite(.freshRegistry) struct MutationStatesTrackerTests {
  @Test func aRunThatStartsAndEndsWhileTheReaderListsShowsInIt() async throws {
    let registry = SharedRegistry.current
    let store = registry.queries
    let blocker = ListingBlocker()
    let reader = store.mutationStates(
      matching: .prefix(["posts"]).matching { run in
        blocker.blockOnce(at: run)
        return true
      })
    let rename = Shared(wrappedValue: MutationState<String, Int>(), .mutation(["posts", 1, "rename"]))
    let like = Shared(wrappedValue: MutationState<String, Int>(), .mutation(["posts", 2, "like"]))
    let gate = Gate()
    // The first run starts on a thread of its own, whose listing of the runs stops in the predicate.
    let started = Task {
      await onThreadOfItsOwn {
        SharedRegistry.$current.withValue(registry) {
          rename.mutate("blocks") { title in
            await gate.wait()
            return title.count
          }
        }
      }
    }
    await blocker.entered.wait()
    // Meanwhile another run starts and ends: its events only ask for another listing.
    _ = try await like.mutate("liked") { title in title.count }.value
    #expect(reader.wrappedValue.isEmpty)  // Nothing written while the listing runs.
    blocker.release.signal()
    let running = await started.value
    // The listing made before the second run was written, then the one after it.
    #expect(reader.wrappedValue.map(\.status) == [.pending, .success])
    #expect(reader.wrappedValue.map { $0.arguments(as: String.self) } == ["blocks", "liked"])
    gate.open()
    _ = try await running.value
    #expect(reader.wrappedValue.map(\.status) == [.success, .success])
    #expect(reader.wrappedValue.showsSameRuns(as: store.mutations(matching: .prefix(["posts"]))))
  }

  @Test func aReaderNobodyHoldsIsDroppedAndRunsCostNothingAfterIt() async throws {
    let store = SharedRegistry.current.queries
    let listings = Counter()
    holdAReader(of: store, counting: listings)
    #expect(store.services.mutationStates.readerCount == 1)  // Kept until an event looks.
    let rename = Shared(wrappedValue: MutationState<String, Int>(), .mutation(["posts", 1, "rename"]))
    _ = try await rename.mutate("Saved") { title in title.count }.value
    #expect(store.services.mutationStates.readerCount == 0)
    #expect(listings.count == 0)  // Never listed again.
  }

  @Test func holdersOfOneReaderShareIt() async throws {
    let store = SharedRegistry.current.queries
    let reader = store.mutationStates(matching: .prefix(["posts"]))
    let copy = reader
    let rename = Shared(wrappedValue: MutationState<String, Int>(), .mutation(["posts", 1, "rename"]))
    _ = try await rename.mutate("Saved") { title in title.count }.value
    #expect(copy.wrappedValue.map(\.status) == [.success])
    #expect(store.services.mutationStates.readerCount == 1)
    _ = reader
  }

  /// Makes a reader whose predicate counts its calls, and lets it go.
  private func holdAReader(of store: QueryStore, counting listings: Counter) {
    let reader = store.mutationStates(matching: .all.matching { _ in listings.increment() > 0 })
    #expect(reader.wrappedValue.isEmpty)
  }
}

/// Stops the first listing that sees a run with the arguments "blocks", on its thread (never a thread of the
/// cooperative pool), until the test releases it.
private final class ListingBlocker: Sendable {
  let entered = Gate()
  let release = DispatchSemaphore(value: 0)
  private let blocked = Lock(false)

  func blockOnce(at run: MutationSnapshot) {
    guard run.arguments(as: String.self) == "blocks" else { return }
    let first = blocked.withLock { blocked in
      defer { blocked = true }
      return !blocked
    }
    guard first else { return }
    entered.open()
    release.wait()
  }
}
