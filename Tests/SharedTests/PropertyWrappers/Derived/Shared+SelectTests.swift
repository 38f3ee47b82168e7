import Foundation
import Synchronization
import TestSupport
import Testing

@testable import SharedState

private struct Article: Sendable, Equatable {
  var title: String
  var views: Int
}

/// A backend whose article's views grow with every fetch while its title stays, unless renamed.
private final class ArticleAPI: Sendable {
  let fetches = Counter()
  let title = Lock("First")

  func article() async throws -> Article {
    Article(title: title.withLock { $0 }, views: fetches.increment())
  }
}

/// Waits until the holder shows a success.
private func waitForSuccess(_ shared: Shared<OperationState<Article>>) async {
  var values = shared.values.makeAsyncIterator()
  while let state = await values.next(), !state.status.isSuccess {}
}

/// `select`: a per-holder transform of a value whose listeners hear only when the selected part changes.
@Suite(.freshRegistry) struct SharedSelectTests {
  private func query(_ api: ArticleAPI, clock: ManualClock) -> Query<OperationState<Article>> {
    .query(["article"], options: queryStoreOptions(clock, staleTime: .zero)) { try await api.article() }
  }

  @Test func aSelectionsObserverHearsOnlyWhenTheSelectedPartChanges() async throws {
    let clock = ManualClock()
    let api = ArticleAPI()
    @Shared(query(api, clock: clock)) var article = OperationState<Article>()
    let title = $article.select { $0.value?.title }
    // The first fetch ends (record and all) before the observer is registered: it hears only later changes.
    #expect(try await $article.fetchValue()?.title == "First")
    let titles = Collector<String?>()
    let token = title.observe { titles.append($0) }
    // Refetches go pending and back to success with other views: the title stays, so the selection is quiet.
    // staleTime is zero: each fetchValue() fetches anew, unless it joins a fetch still ending (then it goes again).
    while try await $article.fetchValue()?.views ?? 0 < 3 {}
    api.title.withLock { $0 = "Second" }
    while try await $article.fetchValue()?.title != "Second" {}
    // Observers are called by the writer after its lock: wait for the call, not for the value.
    await waitUntil { titles.elements.last == "Second" }
    // Observers are called in order: a call for a refetch that left the title would show before "Second".
    #expect(titles.elements == ["Second"])
    #expect(title.wrappedValue == "Second")
    token.cancel()
  }

  @Test func aSelectionsIterationSkipsValuesEqualToTheOneBefore() async {
    let state = Shared(value: OperationState(value: Article(title: "First", views: 1)))
    var titles = state.select { $0.value?.title ?? "" }.values(buffering: .all).makeAsyncIterator()
    state.withLock { $0.status = .pending }
    state.withLock { $0.value?.views = 2 }
    state.withLock { $0.status = .success }
    state.withLock { $0.value?.title = "Second" }
    state.withLock { $0.value?.views = 3 }
    state.withLock { $0.value?.title = "Third" }
    #expect(await titles.next() == "First")
    #expect(await titles.next() == "Second")
    #expect(await titles.next() == "Third")
  }

  @Test func eachHolderSelectsForItselfAndAReaderSelectsToo() {
    let state = Shared(value: OperationState(value: Article(title: "First", views: 1)))
    let views = state.select { $0.value?.views ?? 0 }
    let shout = SharedReader(state).select { $0.value?.title.uppercased() ?? "" }
    let heardViews = Collector<Int>()
    let heardShout = Collector<String>()
    let tokens = [views.observe { heardViews.append($0) }, shout.observe { heardShout.append($0) }]
    state.withLock { $0.value?.views = 2 }
    state.withLock { $0.value?.title = "Second" }
    #expect(heardViews.elements == [2])
    #expect(heardShout.elements == ["SECOND"])
    #expect(views.wrappedValue == 2)
    for token in tokens { token.cancel() }
  }
}
