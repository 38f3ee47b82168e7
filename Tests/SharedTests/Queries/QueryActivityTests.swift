import Foundation
import Synchronization
import TestSupport
import Testing

@testable import SharedState

/// ``QueryStore/activity(matching:)``: the fetching and mutating counts of one part of the app, by key prefix.
@Suite(.freshRegistry) struct QueryActivityTests {
  private func counts(fetching: Int, mutating: Int) -> QueryActivity {
    var activity = QueryActivity()
    activity.fetchingQueries = fetching
    activity.runningMutations = mutating
    return activity
  }

  @Test func aPrefixCountsTheQueriesAndMutationsNamedUnderIt() async throws {
    let clock = ManualClock()
    let store = SharedRegistry.current.queries
    let posts = store.activity(matching: ["posts"])
    let users = store.activity(matching: ["users"])
    let postFetcher = GatedFetcher()
    let userFetcher = GatedFetcher()
    let postFetch = postFetcher.hold()
    let userFetch = userFetcher.hold()
    store.prefetch(.query(["posts", 1], options: queryStoreOptions(clock)) { await postFetcher.fetch() })
    store.prefetch(.query(["users", 1], options: queryStoreOptions(clock)) { await userFetcher.fetch() })
    await waitUntil { store.activity.wrappedValue.fetchingQueries == 2 }
    #expect(posts.wrappedValue == counts(fetching: 1, mutating: 0))
    #expect(users.wrappedValue == counts(fetching: 1, mutating: 0))

    // A mutation counts under the prefixes of its key, from the moment `mutate` is called.
    let save = Gate()
    let rename = Shared(wrappedValue: MutationState<String, Int>(), .mutation(["posts", 1, "rename"]))
    let renaming = rename.mutate("title") { title in
      await save.wait()
      return title.count
    }
    let named = Shared(wrappedValue: MutationState<String, Int>(), .mutation("rename-users"))
    let namedRun = named.mutate("title") { title in
      await save.wait()
      return title.count
    }
    let unnamed = Shared(wrappedValue: MutationState<String, Int>(), .inMemory("save"))
    let unnamedRun = unnamed.mutate("title") { title in
      await save.wait()
      return title.count
    }
    #expect(posts.wrappedValue == counts(fetching: 1, mutating: 1))
    #expect(users.wrappedValue == counts(fetching: 1, mutating: 0))  // ["rename-users"] is not under ["users"].
    #expect(store.activity(matching: ["rename-users"]).wrappedValue == counts(fetching: 0, mutating: 1))
    #expect(store.activity.wrappedValue == counts(fetching: 2, mutating: 3))
    #expect(store.activity(matching: []).wrappedValue == counts(fetching: 2, mutating: 3))

    // A reader made while they run starts from them.
    let post = store.activity(matching: ["posts", 1])
    #expect(post.wrappedValue == counts(fetching: 1, mutating: 1))
    #expect(store.activity(matching: ["posts", 2]).wrappedValue == QueryActivity())

    postFetch.open()
    await waitUntil { posts.wrappedValue.fetchingQueries == 0 }
    #expect(post.wrappedValue == counts(fetching: 0, mutating: 1))
    #expect(users.wrappedValue == counts(fetching: 1, mutating: 0))
    save.open()
    _ = try await (renaming.value, namedRun.value, unnamedRun.value)
    await waitUntil { posts.wrappedValue.isIdle }
    #expect(post.wrappedValue.isIdle)
    userFetch.open()
    await waitUntil { store.activity.wrappedValue.isIdle }
    await waitUntil { users.wrappedValue.isIdle }
  }

  @Test func aReaderHearsEveryChangeUnderItsPrefixAndNoOther() async throws {
    let clock = ManualClock()
    let store = SharedRegistry.current.queries
    let posts = store.activity(matching: ["posts"])
    let seen = Collector<QueryActivity>()
    let token = posts.observe { seen.append($0) }
    defer { token.cancel() }
    let fetcher = GatedFetcher()
    _ = try await store.fetch(.query(["users", 1], options: queryStoreOptions(clock)) { await fetcher.fetch() })
    #expect(seen.elements.isEmpty)
    _ = try await store.fetch(.query(["posts", 1], options: queryStoreOptions(clock)) { await fetcher.fetch() })
    let rename = Shared(wrappedValue: MutationState<String, Int>(), .mutation(["posts", 1, "rename"]))
    _ = try await rename.mutate("title") { title in title.count }.value
    await waitUntil { seen.elements.count == 4 }
    #expect(
      seen.elements == [
        counts(fetching: 1, mutating: 0), QueryActivity(), counts(fetching: 0, mutating: 1), QueryActivity(),
      ])
  }

  @Test func holdersOfOnePrefixShareOneReader() async {
    let store = SharedRegistry.current.queries
    let first = store.activity(matching: ["posts"])
    let second = store.activity(matching: ["posts"])
    let rename = Shared(wrappedValue: MutationState<String, Int>(), .mutation(["posts", 1, "rename"]))
    let gate = Gate()
    let run = rename.mutate("title") { title in
      await gate.wait()
      return title.count
    }
    #expect(first.wrappedValue.runningMutations == 1)
    #expect(second.wrappedValue.runningMutations == 1)
    #expect(store.services.activity.readerCount == 1)
    gate.open()
    _ = await run.result
  }

  @Test func aReaderNobodyHoldsIsDropped() {
    let store = SharedRegistry.current.queries
    for id in 0..<100 { #expect(store.activity(matching: ["posts", id]).wrappedValue.isIdle) }
    _ = store.activity(matching: ["users"])  // Looks at the readers, and drops those nobody holds.
    #expect(store.services.activity.readerCount == 1)
  }
}
