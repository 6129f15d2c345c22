/** Sign-in: the admin token, once, for a session. A wrong token is told so, and nothing more. */
import { signIn } from '../admin-api';
import { useAction } from '../use-action';

export function SignIn(props: { onSignedIn: () => void }) {
  const { busy, error, run } = useAction();
  const submit = async (e: Event) => {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const token = (form.elements.namedItem('token') as HTMLInputElement).value;
    if (!(await run(() => signIn(token)))) return;
    form.reset();
    props.onSignedIn();
  };
  return (
    <main class="container sign-in">
      <article>
        <h1>mediagate console</h1>
        <p>
          Sign in with the gateway's admin token (ADMIN_TOKEN; <code>npm start</code> prints it and keeps it in data/dev-admin-token).
        </p>
        <form onSubmit={submit}>
          <label>
            Admin token
            <input
              name="token"
              type="password"
              required
              autocomplete="off"
              aria-invalid={error ? 'true' : undefined}
              aria-describedby="sign-in-error"
            />
          </label>
          {error ? (
            <p id="sign-in-error" role="alert" class="error">
              {error}
            </p>
          ) : null}
          <button type="submit" aria-busy={busy} disabled={busy}>
            Sign in
          </button>
        </form>
      </article>
    </main>
  );
}
