/** Renderer entry: builds the store over `window.sluice` and mounts the app. */
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import './styles.css';
import { getBridge } from './bridge/bridge';
import { AppStore } from './state/store';
import { StoreContext } from './state/react';
import { App } from './views/App';

const root = createRoot(document.getElementById('root')!);
try {
  const store = new AppStore(getBridge());
  void store.start();
  root.render(
    <StrictMode>
      <StoreContext.Provider value={store}>
        <App />
      </StoreContext.Provider>
    </StrictMode>,
  );
} catch (e) {
  root.render(
    <p role="alert" style={{ padding: 20 }}>
      {(e as Error).message}
    </p>,
  );
}
