/**
 * The console's frame: signed in or not (the session cookie is checked once at load, and any 401 afterwards signs
 * the page out), the navigation, and the pages under /console.
 */
import { useEffect, useState } from 'preact/hooks';
import { LocationProvider, Route, Router, useLocation } from 'preact-iso';
import { onSignedOut, resumeSession, signOut } from './admin-api';
import { Accounts } from './pages/accounts';
import { Deliveries } from './pages/deliveries';
import { Keys } from './pages/keys';
import { Overview } from './pages/overview';
import { Reconciliation, Reconciliations } from './pages/reconciliation';
import { SignIn } from './pages/sign-in';
import { Spend } from './pages/spend';
import { Task } from './pages/task';
import { Tasks } from './pages/tasks';

export const BASE = '/console';

const PAGES = [
  { href: `${BASE}/`, label: 'Overview' },
  { href: `${BASE}/keys`, label: 'Keys' },
  { href: `${BASE}/spend`, label: 'Spend' },
  { href: `${BASE}/tasks`, label: 'Tasks' },
  { href: `${BASE}/accounts`, label: 'Accounts' },
  { href: `${BASE}/deliveries`, label: 'Deliveries' },
  { href: `${BASE}/reconciliation`, label: 'Reconciliation' },
];

function Nav(props: { onSignOut: () => void }) {
  const { path } = useLocation();
  const current = (href: string) => (href === `${BASE}/` ? path === BASE || path === `${BASE}/` : path.startsWith(href));
  return (
    <nav aria-label="Console">
      <ul>
        <li>
          <strong>mediagate</strong>
        </li>
      </ul>
      <ul>
        {PAGES.map((p) => (
          <li key={p.href}>
            <a href={p.href} aria-current={current(p.href) ? 'page' : undefined}>
              {p.label}
            </a>
          </li>
        ))}
        <li>
          <button type="button" class="secondary outline" onClick={props.onSignOut}>
            Sign out
          </button>
        </li>
      </ul>
    </nav>
  );
}

function NotFound() {
  return <h1>No such page</h1>;
}

export function App() {
  const [signedIn, setSignedIn] = useState<boolean>();
  useEffect(() => {
    resumeSession().then(setSignedIn, () => setSignedIn(false));
    return onSignedOut(() => setSignedIn(false));
  }, []);
  if (signedIn === undefined) return <main class="container" aria-busy="true" />;
  if (!signedIn) return <SignIn onSignedIn={() => setSignedIn(true)} />;
  const out = () => void signOut().finally(() => setSignedIn(false));
  return (
    <LocationProvider>
      <header class="container">
        <Nav onSignOut={out} />
      </header>
      <main class="container">
        <Router>
          <Route path={BASE} component={Overview} />
          <Route path={`${BASE}/`} component={Overview} />
          <Route path={`${BASE}/keys`} component={Keys} />
          <Route path={`${BASE}/spend`} component={Spend} />
          <Route path={`${BASE}/tasks`} component={Tasks} />
          <Route path={`${BASE}/tasks/:id`} component={Task} />
          <Route path={`${BASE}/accounts`} component={Accounts} />
          <Route path={`${BASE}/deliveries`} component={Deliveries} />
          <Route path={`${BASE}/reconciliation`} component={Reconciliations} />
          <Route path={`${BASE}/reconciliation/:id`} component={Reconciliation} />
          <Route default component={NotFound} />
        </Router>
      </main>
    </LocationProvider>
  );
}
