import Foundation
import TestSupport
import Testing

@testable import SharedState

/// The meta an app attaches to a query or a mutation: read back with its type, handed to the fetcher or the
/// mutation's closure, to the store's hooks, and to an inspector as text.
@Suite(.freshRegistry) struct OperationMetaTests {
  @Test func metaIsReadBackWithItsTypeAndSummarizedAsText() {
    let meta: OperationMeta = ["screen": "feed", "page size": 20]
    #expect(meta["screen", as: String.self] == "feed")
    #expect(meta["page size", as: Int.self] == 20)
    #expect(meta["page size", as: String.self] == nil)
    #expect(meta["missing"] == nil)
    #expect(meta.summary == ["screen": "feed", "page size": "20"])
    #expect(meta.description == #"["page size": 20, "screen": feed]"#)
    #expect(OperationMeta().isEmpty && !meta.isEmpty)
    #expect(QueryOptions().meta.isEmpty)
    #expect(QueryOptions(meta: meta).meta.isIdentical(to: meta))
    #expect(!QueryOptions(meta: ["screen": "feed"]).meta.isIdentical(to: meta))
  }

  @Test func aQuerysMetaReachesItsFetcherItsHooksAndTheInspector() async throws {
    let store = SharedRegistry.current.queries
    let heard = Collector<String>()
    store.hooks = QueryHooks(
      onSuccess: { subject, _ in heard.append("success \(subject.meta["screen", as: String.self] ?? "none")") },
      onSettled: { subject, _ in
        if case .query(let key, let meta) = subject { heard.append("settled \(key) \(meta)") }
      })
    let options = QueryOptions(
      meta: ["screen": "feed"], operation: OperationOptions(retry: .none, clock: ManualClock()))
    let query: Query<OperationState<String>> = .query(["feed"], options: options) { context in
      "fetched for \(context.meta["screen", as: String.self] ?? "nobody")"
    }
    #expect(try await store.fetch(query) == "fetched for feed")
    await waitUntil { heard.elements.count == 2 }
    #expect(heard.elements == ["success feed", #"settled ["feed"] ["screen": feed]"#])
    let inspected = SharedRegistry.current.inspector.snapshot()[id: #"query:["feed"]"#]
    #expect(inspected?.query?.meta == ["screen": "feed"])
  }

  @Test func aMutationsMetaReachesItsClosureAndTheHooks() async throws {
    let store = SharedRegistry.current.queries
    let heard = Collector<String>()
    store.hooks = QueryHooks(onSettled: { subject, _ in
      if case .mutation(let arguments, let meta) = subject { heard.append("\(arguments) \(meta)") }
    })
    let rename = Shared(wrappedValue: MutationState<String, String>(), .inMemory("rename"))
    let run = rename.mutate("title", .meta(["screen": "post"])) { title, context in
      "\(title) from \(context.meta["screen", as: String.self] ?? "nowhere")"
    }
    #expect(try await run.value == "title from post")
    await waitUntil { !heard.elements.isEmpty }
    #expect(heard.elements == [#"title ["screen": post]"#])
  }
}
