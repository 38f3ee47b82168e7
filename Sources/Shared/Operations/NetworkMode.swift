/// Whether a query's fetch or a mutation's run waits for the network: while the device is offline, as the
/// ``QueryStore/onlineStatus`` of its store says, work that needs the network waits instead of failing.
///
/// ```swift
/// let store = SharedRegistry.current.queries
/// store.onlineStatus = ManualOnlineStatus(isOnline: false)  // NetworkPathOnlineStatus() on Apple platforms
/// store.networkMode = .online  // the default: fetches and mutations wait for the network
/// ```
///
/// Work waiting for the network shows ``OperationTracking/isPaused`` instead of
/// ``OperationTracking/isFetching``, keeping its status (a first load stays ``OperationStatus/pending``); when the
/// device is online again, the paused work goes on in the order it paused. Cancelling work that waits ends it at
/// once.
///
/// Queries and mutations take their store's ``QueryStore/networkMode`` unless their options name a mode
/// (``OperationOptions/networkMode``, ``QueryOptions/networkMode``). A plain run
/// (``Shared/run(_:policy:optimistic:isolation:_:onAttempt:onSuccess:onError:onSettled:)-(_,_,_,_,()->Value.Success,_,_,_,_)``)
/// follows the network only when its options name a mode. A store with no ``QueryStore/onlineStatus`` counts the
/// device as online: nothing waits.
public enum NetworkMode: Sendable, Hashable, CaseIterable {
  /// Work starts only while the device is online, and a retry waits for the network: the default.
  ///
  /// ```swift
  /// $rename.mutate("New title", .networkMode(.online)) { title in try await api.rename(42, to: title) }
  /// ```
  ///
  /// A fetch or a run that would start offline waits, paused, until the device is online; so does a retry that
  /// falls due while the device is offline (see ``OperationOptions/retry``): its attempts are not used up offline.
  case online

  /// The network is ignored: work starts and retries whatever the device's status, as with no online status.
  ///
  /// ```swift
  /// let local = QueryOptions(networkMode: .always)  // a query that reads a local database
  /// ```
  ///
  /// For work that needs no network: a local database, a computation, a file.
  case always

  /// The first attempt runs whatever the device's status, and a retry waits for the network.
  ///
  /// ```swift
  /// let cached = QueryOptions(networkMode: .offlineFirst)  // an HTTP cache on the device may answer
  /// ```
  ///
  /// For work that something on the device may answer offline (an HTTP cache, a local replica): the first attempt
  /// runs, and if it fails while the device is offline, its retry waits for the network as under ``online``.
  case offlineFirst
}
