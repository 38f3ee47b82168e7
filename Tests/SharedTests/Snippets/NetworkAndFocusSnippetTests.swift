// A snippet of the documentation that states a result, run as a test.
import SharedState
import Testing

/// TestingWithShared.md, "The network and the app's focus": run as a test, so the article's example is known to
/// work.
@Suite(.freshRegistry) struct NetworkAndFocusSnippetTests {
  @Test func waitsOfflineAndFetchesOnceOnline() async throws {
    let network = ManualOnlineStatus(isOnline: false)
    SharedRegistry.current.queries.onlineStatus = network
    @Shared(.query(["feed"]) { ["first post"] }) var feed = OperationState<[String]>()
    #expect(feed.isPaused)  // offline: the fetch waits for the network
    network.setOnline(true)  // it goes on; held stale queries refetch too
    #expect(try await $feed.fetchValue() == ["first post"])
  }
}
