// The <option>s of a select whose values are also what it shows (agents, providers, a request option's choices).

export function OptionList({ values }: { values: readonly string[] }) {
  return (
    <>
      {values.map((value) => (
        <option key={value} value={value}>
          {value}
        </option>
      ))}
    </>
  );
}
