// A real OpenID Connect provider (npm's oidc-provider) on loopback, for the dashboard's login
// tests: the browser signs in on the provider's own login and consent pages (its development
// interactions: any password), the app gets an ID token carrying each user's `groups` claim, and
// signing out goes through the provider's end-session page. Test-time only; never served to users.
//
// Usage: node provider.mjs PORT REDIRECT_URI USERS_JSON
//   USERS_JSON: {"alice": {"name": "Alice", "groups": ["ops"]}, ...}; a login the file does not
//   list gets no account (the development login page itself takes any name and password).
// Prints "ready <issuer>" once it listens on 127.0.0.1:PORT.
import { readFileSync } from "node:fs";
import Provider from "oidc-provider";

const [port, redirectUri, usersFile] = process.argv.slice(2);
const users = JSON.parse(readFileSync(usersFile, "utf8"));
const issuer = `http://127.0.0.1:${port}`;

const provider = new Provider(issuer, {
  clients: [
    {
      client_id: "assignment-explorer",
      client_secret: "test-client-secret",
      redirect_uris: [redirectUri],
      // Streamlit sends its redirect_uri as the address to come back to after signing out.
      post_logout_redirect_uris: [redirectUri],
      grant_types: ["authorization_code"],
      response_types: ["code"],
    },
  ],
  // `groups` rides on the profile scope (Streamlit asks for "openid profile email").
  claims: { openid: ["sub"], profile: ["name", "groups"], email: ["email"] },
  // Streamlit reads the user from the ID token alone: put the scopes' claims in it.
  conformIdTokenClaims: false,
  cookies: { keys: ["test-only-cookie-key"] },
  features: { devInteractions: { enabled: true }, rpInitiatedLogout: { enabled: true } },
  async findAccount(_ctx, id) {
    if (!Object.hasOwn(users, id)) return undefined;
    const user = users[id];
    return {
      accountId: id,
      async claims() {
        return { sub: id, name: user.name, email: `${id}@example.test`, groups: user.groups };
      },
    };
  },
});
// An error inside the provider is printed to the test's log (an unknown login ends there).
provider.on("server_error", (_ctx, error) => console.error(error));
provider.listen(Number(port), "127.0.0.1", () => console.log(`ready ${issuer}`));
