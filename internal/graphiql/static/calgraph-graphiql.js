// Starts GraphiQL, whose scripts the page loads before this one, in
// #graphiql: the endpoint and the headers to pre-fill come from the element's
// data attributes (the page has no inline script: its Content-Security-Policy
// allows none). When GraphiQL did not load or fails to start, it shows
// #calgraph-offline instead: how to call the API without it.
(function () {
  'use strict';
  var root = document.getElementById('graphiql');

  function showHelp(reason) {
    var url = location.origin + root.dataset.endpoint;
    document.querySelectorAll('.calgraph-endpoint').forEach(function (e) { e.textContent = url; });
    document.getElementById('calgraph-reason').textContent = String(reason);
    root.hidden = true;
    document.getElementById('calgraph-offline').hidden = false;
  }

  var missing = ['React', 'ReactDOM', 'GraphiQL'].filter(function (name) { return typeof window[name] === 'undefined'; });
  if (missing.length > 0) {
    showHelp(missing.join(', ') + ' did not load.');
    return;
  }
  try {
    // The nonce the page's Content-Security-Policy allows <style> elements
    // with: GraphiQL's bundle gives it to those its dialogs add.
    window.__webpack_nonce__ = root.dataset.styleNonce;
    var ws = (location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + root.dataset.endpoint;
    // Over the WebSocket, GraphiQL sends the headers editor's content as the
    // connection_init payload: the Authorization header signs the socket in.
    var fetcher = GraphiQL.createFetcher({ url: location.origin + root.dataset.endpoint, subscriptionUrl: ws });
    var plugins = typeof GraphiQLPluginExplorer === 'undefined' ? [] : [GraphiQLPluginExplorer.explorerPlugin()];
    ReactDOM.createRoot(root).render(React.createElement(GraphiQL, {
      fetcher: fetcher,
      headers: root.dataset.headers || undefined,
      isHeadersEditorEnabled: true,
      shouldPersistHeaders: true,
      inputValueDeprecation: true,
      plugins: plugins,
    }));
  } catch (e) {
    showHelp(e);
  }
})();
