// The one way a screen, dialog or card says what went wrong: a red notice read out at once (role="alert"), shown only
// while there is a problem. `class` adds the place's own spacing (header-problem, small, ...).

interface Props {
  problem: string | undefined | null;
  class?: string;
}

export function ErrorNotice({ problem, class: placement }: Props) {
  if (!problem) return null;
  return (
    <p class={placement ? `notice error ${placement}` : "notice error"} role="alert">
      {problem}
    </p>
  );
}
